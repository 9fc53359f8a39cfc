import type { Knex } from 'knex';
import type { UsageSummary } from '../../../schema/compat/types.js';
import type { UsageDelta, UsageTally } from '../../domain/events/usage-deltas.js';
import { type EventUsageRepository, type UsageBudget, responseBudget } from '../../domain/events/usage-ports.js';
import type { Dialect } from '../knex.js';
import type { Executor } from '../rows.js';
import { readSummary } from './event-usage-read.js';

type Row = Record<string, unknown>;

const TABLE = 'event_detail_usage';
/** Rows per upsert statement: SQLite compiles a multi-row insert as a compound SELECT (at most 500 terms). */
const CHUNK = 400;

/**
 * `event_detail_usage` (migration 20261130_0102): counts kept by the events repository for each
 * transaction's event writes (applied once before its commit); read by summaries with bounded,
 * indexed queries only (event-usage-read.ts).
 */
export class KnexEventUsageRepository implements EventUsageRepository {
  constructor(
    private readonly db: Executor,
    private readonly dialect?: Dialect,
  ) {}

  /** A transaction's tally (store.ts, before its commit): one apply per tenant, tenants in order. */
  async applyTally(tally: UsageTally): Promise<void> {
    for (const { tenantId, deltas } of tally.drain()) await this.apply(tenantId, deltas);
  }

  /**
   * One multi-row upsert per CHUNK rows, the rows in the order given (key order: usageDeltas and
   * UsageTally sort them), so concurrent PostgreSQL transactions, each applying its deltas once,
   * take the row locks in one order and never deadlock. The rows that reach 0 are deleted (by key).
   */
  async apply(tenantId: string, deltas: readonly UsageDelta[]): Promise<void> {
    const emptied: Array<{ event_type: string; field: string; value_key: string }> = [];
    for (let start = 0; start < deltas.length; start += CHUNK) {
      const chunk = deltas.slice(start, start + CHUNK);
      const rows = chunk.map((d) => ({
        tenant_id: tenantId, event_type: d.eventType, field: d.field, value_key: d.valueKey, grp: d.group,
        events: d.delta, value_text: d.valueText, num: d.num, str_len: d.strLen,
      }));
      const upsert = this.db(TABLE).insert(rows)
        .onConflict(['tenant_id', 'event_type', 'field', 'value_key'])
        .merge({ events: this.db.raw(`${TABLE}.events + excluded.events`) });
      // Only a subtraction can empty a row: an all-positive chunk (a create) returns nothing.
      if (!chunk.some((d) => d.delta < 0)) {
        await upsert;
        continue;
      }
      const counted: Row[] = await upsert.returning(['event_type', 'field', 'value_key', 'events']);
      for (const row of counted) {
        if (Number(row.events) <= 0) emptied.push({ event_type: row.event_type as string, field: row.field as string, value_key: row.value_key as string });
      }
    }
    for (let start = 0; start < emptied.length; start += 200) {
      const keys = emptied.slice(start, start + 200);
      await this.db(TABLE).where({ tenant_id: tenantId }).andWhere('events', '<=', 0).andWhere((q) => {
        for (const key of keys) q.orWhere(key);
      }).delete();
    }
  }

  async summary(tenantId: string, eventType: string): Promise<UsageSummary> {
    return (await this.summaries(tenantId, [eventType]))[0]!;
  }

  /**
   * In the order given, under one budget (usage-ports.ts). On PostgreSQL in one REPEATABLE READ
   * READ ONLY transaction: every count of the answer from one snapshot.
   */
  async summaries(tenantId: string, eventTypes: readonly string[], budget: UsageBudget = responseBudget()): Promise<UsageSummary[]> {
    const read = async (db: Executor) => {
      const out: UsageSummary[] = [];
      for (const eventType of eventTypes) out.push(await readSummary(db, tenantId, eventType, budget));
      return out;
    };
    if (this.dialect !== 'postgres' || this.db.isTransaction) return read(this.db);
    return (this.db as Knex).transaction(read, { isolationLevel: 'repeatable read', readOnly: true });
  }
}
