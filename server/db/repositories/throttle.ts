import type { ThrottleRepository } from '../../domain/ports.js';
import type { Executor } from '../rows.js';
import { fromDbMillis } from '../time.js';

export class KnexThrottleRepository implements ThrottleRepository {
  constructor(private readonly db: Executor) {}

  /**
   * Count-and-check in one statement (an UPSERT ... RETURNING, atomic on SQLite and on
   * PostgreSQL, whatever the number of server processes): the attempt is counted unless the key
   * is spent, and the statement answers with the count that decides. A stale window restarts at
   * one; a spent key stays at `limit + 1` (so it never grows without bound).
   */
  async reserve(scopeKey: string, limit: number, now: number, windowStart: number): Promise<{ allowed: boolean; windowStart: number }> {
    const stale = 'auth_failures.window_start < ?';
    const rows: Array<{ failures: unknown; window_start: unknown }> = await this.db('auth_failures')
      .insert({ scope_key: scopeKey, window_start: now, failures: 1 })
      .onConflict('scope_key')
      .merge({
        failures: this.db.raw(`CASE WHEN ${stale} THEN 1 WHEN auth_failures.failures > ? THEN auth_failures.failures ELSE auth_failures.failures + 1 END`, [windowStart, limit]),
        window_start: this.db.raw(`CASE WHEN ${stale} THEN ? ELSE auth_failures.window_start END`, [windowStart, now]),
      })
      .returning(['failures', 'window_start']);
    const row = rows[0]!;
    return { allowed: Number(row.failures) <= limit, windowStart: fromDbMillis(row.window_start) };
  }

  /** Gives back one reserved attempt of the window it was taken in (never below zero). */
  async release(scopeKey: string, windowStart: number): Promise<void> {
    await this.db('auth_failures')
      .where({ scope_key: scopeKey, window_start: windowStart })
      .where('failures', '>', 0)
      .update({ failures: this.db.raw('failures - 1') });
  }

  async clear(scopeKey: string): Promise<void> {
    await this.db('auth_failures').where({ scope_key: scopeKey }).delete();
  }

  /**
   * NOTE: knex drops RETURNING from a SQLite delete, so the count is read first: an attempt
   * counted in between (outside a transaction) is deleted with the rest, though not reported.
   */
  async take(scopeKey: string): Promise<{ failures: number; windowStart: number } | null> {
    const row: { failures: unknown; window_start: unknown } | undefined = await this.db('auth_failures').where({ scope_key: scopeKey }).first('failures', 'window_start');
    if (!row) return null;
    await this.db('auth_failures').where({ scope_key: scopeKey }).delete();
    return { failures: Number(row.failures), windowStart: fromDbMillis(row.window_start) };
  }
}
