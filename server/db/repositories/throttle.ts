import type { ThrottleRepository } from '../../domain/ports.js';
import type { Executor } from '../rows.js';
import { fromDbMillis } from '../time.js';

export class KnexThrottleRepository implements ThrottleRepository {
  constructor(private readonly db: Executor) {}

  async failuresSince(scopeKey: string, windowStart: number): Promise<{ failures: number; windowStart: number } | null> {
    const row = await this.db('auth_failures').where({ scope_key: scopeKey }).where('window_start', '>=', windowStart).first();
    return row ? { failures: Number(row.failures), windowStart: fromDbMillis(row.window_start) } : null;
  }

  /** One atomic upsert, so concurrent failures from several processes all count. */
  async recordFailure(scopeKey: string, now: number, windowStart: number): Promise<void> {
    await this.db('auth_failures')
      .insert({ scope_key: scopeKey, window_start: now, failures: 1 })
      .onConflict('scope_key')
      .merge({
        failures: this.db.raw('CASE WHEN auth_failures.window_start < ? THEN 1 ELSE auth_failures.failures + 1 END', [windowStart]),
        window_start: this.db.raw('CASE WHEN auth_failures.window_start < ? THEN ? ELSE auth_failures.window_start END', [windowStart, now]),
      });
  }

  async clear(scopeKey: string): Promise<void> {
    await this.db('auth_failures').where({ scope_key: scopeKey }).delete();
  }
}
