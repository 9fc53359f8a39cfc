/**
 * The feed's reads on Knex (server/domain/sync/feed-ports.ts SyncFeedReads), both dialects.
 *
 * Order: the log is served in (txid, position) order; on PostgreSQL only rows with txid < H,
 * H = pg_snapshot_xmin(pg_current_snapshot()) read in the same snapshot as the rows (every
 * transaction below H has ended, so the set served never grows behind a cursor). On SQLite
 * writers are serialised, txid is 0 and position alone is the commit order.
 *
 * (kind, id) keysets compare bytes (COLLATE "C" on PostgreSQL), whatever the database's
 * collation, so that the order is the same on both dialects and in JavaScript.
 */
import type { Knex } from 'knex';
import { MAX_PAGE_CHANGES, type RecordKind, type ScopeSum } from '../../../protocol/sync.js';
import type { LogPosition } from '../../domain/sync/cursor.js';
import { type LogPage, type LogRow, type MemberEntry, type SyncFeedReads, type TenantFeedState, recordKey } from '../../domain/sync/feed-ports.js';
import type { Dialect } from '../knex.js';
import { HORIZON_SQL } from './horizon.js';
import type { EventRecord } from '../../domain/events/model.js';
import type { Patrol } from '../../domain/patrols/model.js';
import { toEvent } from '../repositories/events.js';
import { toPatrol } from '../repositories/patrol-rows.js';
import { chunks } from './facts.js';
import { type Row, type SnapshotReader, placeholders, readSnapshot } from './snapshot.js';

const MOD = 4294967296;
/** Ids per IN list. */
const IDS = 500;
/** Records read per statement: a whole page (MAX_PAGE_CHANGES). */
const RECORDS = MAX_PAGE_CHANGES;

const num = (value: unknown) => Number(value ?? 0);
const split = (text: unknown) => (typeof text === 'string' && text.length > 0 ? text.split(' ') : []);

export class KnexSyncFeedReads implements SyncFeedReads {
  private readonly collate: string;

  constructor(
    private readonly knex: Knex,
    private readonly dialect: Dialect,
  ) {
    this.collate = dialect === 'postgres' ? ' COLLATE "C"' : '';
  }

  async tenantState(tenantId: string): Promise<TenantFeedState> {
    const row = await this.knex('sync_tenant_state').where({ tenant_id: tenantId }).first('backfill', 'pruned_txid', 'pruned_position');
    return { backfillDone: row?.backfill === 'done', pruned: [num(row?.pruned_txid), num(row?.pruned_position)] };
  }

  async visibleGroups(tenantId: string, viewerUserId: string | null): Promise<string[]> {
    const query = this.knex('subject_groups').where({ tenant_id: tenantId }).select('id');
    if (viewerUserId !== null) query.whereIn('id', this.knex('user_subject_groups').select('group_id').where({ user_id: viewerUserId }));
    return ((await query) as Array<{ id: unknown }>).map((row) => String(row.id));
  }

  async startPosition(): Promise<LogPosition> {
    if (this.dialect === 'postgres') {
      const { rows } = (await this.knex.raw(`SELECT ${HORIZON_SQL} AS h`)) as { rows: Row[] };
      return [num(rows[0]!.h), 0];
    }
    // The largest position of any tenant: every position committed from now on is larger (the
    // writer holds the lock), and the tenant's rows are filtered when the log is read.
    const row = await this.knex('sync_changes').max({ p: 'position' }).first();
    return [0, num(row?.p)];
  }

  /**
   * The next `limit` records of `keys` after `after` in (kind, id) byte order, each with its
   * keys among `report` (default: `keys`) and its version; a record with none of `report` is
   * left out.
   */
  async snapshotPage(tenantId: string, keys: readonly string[], after: readonly [RecordKind, string] | null, limit: number, report?: readonly string[]): Promise<MemberEntry[]> {
    if (keys.length === 0) return [];
    const rows = this.dialect === 'postgres' ? await this.snapshotPagePostgres(tenantId, keys, after, limit, report ?? keys) : await this.snapshotPageSqlite(tenantId, keys, after, limit, report);
    return rows.map((row) => ({ kind: row.kind as RecordKind, id: String(row.record_id), version: num(row.version), keys: split(row.keys).sort() }));
  }

  /**
   * PostgreSQL: walks sync_members_order_idx (20261126_0201) from the keyset, in order, to the
   * page's `limit` distinct records (an index-only scan that stops there), then aggregates the
   * keys of just those, one index probe each. `kind COLLATE "C" >= ''` (always true) is the
   * partial index's predicate: stated, the index may be used. NOTE: written so because a GROUP
   * BY over the walk is planned as a hash aggregate and sort of every member after the keyset
   * (the planner underestimates how many match `keys`): ~25 ms a page at 22,000 records, not ~3.
   */
  private snapshotPagePostgres(tenantId: string, keys: readonly string[], after: readonly [RecordKind, string] | null, limit: number, report: readonly string[]): Promise<Row[]> {
    const bindings: unknown[] = [tenantId, ...keys];
    let where = `tenant_id = ? AND kind COLLATE "C" >= '' AND scope_key IN ${placeholders(keys.length)}`;
    if (after) {
      where += ' AND (kind COLLATE "C", record_id COLLATE "C") > (?, ?)';
      bindings.push(after[0], after[1]);
    }
    bindings.push(limit, tenantId, ...report);
    const sql =
      'SELECT page.kind, page.record_id, agg.version, agg.keys' +
      ` FROM (SELECT DISTINCT kind COLLATE "C" AS kind, record_id COLLATE "C" AS record_id FROM sync_members WHERE ${where} ORDER BY 1, 2 LIMIT ?) page` +
      " CROSS JOIN LATERAL (SELECT MAX(m.version) AS version, string_agg(m.scope_key, ' ') AS keys FROM sync_members m" +
      ` WHERE m.tenant_id = ? AND m.kind COLLATE "C" >= '' AND m.kind COLLATE "C" = page.kind AND m.record_id COLLATE "C" = page.record_id AND m.scope_key IN ${placeholders(report.length)}) agg` +
      ' WHERE agg.keys IS NOT NULL ORDER BY page.kind, page.record_id';
    return this.all(sql, bindings);
  }

  /** SQLite: text compares bytewise; sync_members_record_idx is read in order (EXPLAIN QUERY PLAN). */
  private snapshotPageSqlite(tenantId: string, keys: readonly string[], after: readonly [RecordKind, string] | null, limit: number, report?: readonly string[]): Promise<Row[]> {
    const bindings: unknown[] = [tenantId, ...keys];
    let where = `tenant_id = ? AND scope_key IN ${placeholders(keys.length)}`;
    if (after) {
      where += ' AND (kind, record_id) > (?, ?)';
      bindings.push(after[0], after[1]);
    }
    bindings.push(limit);
    const same = !report || (report.length === keys.length && report.every((key, i) => key === keys[i]));
    // Reporting other keys: the page's records are chosen by `keys` (the inner keyset), their
    // keys are read among `report` (the outer aggregate).
    const sql = same
      ? `SELECT kind, record_id, MAX(version) AS version, group_concat(scope_key, ' ') AS keys FROM sync_members WHERE ${where} GROUP BY kind, record_id ORDER BY kind, record_id LIMIT ?`
      : `SELECT kind, record_id, MAX(version) AS version, group_concat(scope_key, ' ') AS keys FROM sync_members WHERE tenant_id = ? AND scope_key IN ${placeholders(report.length)} AND (kind, record_id) IN (SELECT kind, record_id FROM sync_members WHERE ${where} GROUP BY kind, record_id ORDER BY kind, record_id LIMIT ?) GROUP BY kind, record_id ORDER BY kind, record_id`;
    if (!same) bindings.unshift(tenantId, ...report);
    return this.all(sql, bindings);
  }

  logPage(tenantId: string, keys: readonly string[], after: LogPosition, limit: number): Promise<LogPage> {
    return readSnapshot(this.knex, this.dialect, async (reader) => {
      const horizon = await this.horizon(reader);
      const rows = (
        this.dialect === 'postgres'
          ? await reader.all('SELECT txid, position, kind, record_id, op, scopes, old_scopes FROM sync_changes WHERE tenant_id = ? AND txid < ? AND (txid, position) > (?, ?) ORDER BY txid, position LIMIT ?', [tenantId, horizon, after[0], after[1], limit])
          : await reader.all('SELECT txid, position, kind, record_id, op, scopes, old_scopes FROM sync_changes WHERE tenant_id = ? AND position > ? ORDER BY position LIMIT ?', [tenantId, after[1], limit])
      ).map(toLogRow);
      const state = await reader.all('SELECT pruned_txid, pruned_position FROM sync_tenant_state WHERE tenant_id = ?', [tenantId]);
      const pruned: LogPosition = [num(state[0]?.pruned_txid), num(state[0]?.pruned_position)];
      const wanted = new Set(keys);
      const current = new Map<string, { version: number; keys: string[] }>();
      const latest = new Map<string, number>();
      const byKind = new Map<RecordKind, Set<string>>();
      // Only records of rows the laptop's keys touch (before or after) are looked up.
      for (const row of rows) {
        if (!row.scopes.some((key) => wanted.has(key)) && !row.oldScopes.some((key) => wanted.has(key))) continue;
        (byKind.get(row.kind) ?? byKind.set(row.kind, new Set()).get(row.kind)!).add(row.id);
      }
      for (const [kind, ids] of byKind) {
        const members = await this.membersOf(reader, tenantId, kind, [...ids]);
        for (const [id, entry] of members) {
          latest.set(recordKey(kind, id), entry.version);
          const inWanted = entry.keys.filter((key) => wanted.has(key));
          if (inWanted.length > 0) current.set(recordKey(kind, id), { version: entry.version, keys: inWanted });
        }
        const unseen = [...ids].filter((id) => !members.has(id));
        for (const chunk of chunks(unseen, IDS)) {
          const found = await reader.all(`SELECT record_id, MAX(position) AS p FROM sync_changes WHERE tenant_id = ? AND kind = ? AND record_id IN ${placeholders(chunk.length)} GROUP BY record_id`, [tenantId, kind, ...chunk]);
          for (const row of found) latest.set(recordKey(kind, String(row.record_id)), num(row.p));
        }
      }
      const exhausted = rows.length < limit;
      const quiet = exhausted ? await this.quiet(reader, tenantId, horizon) : false;
      const sums = exhausted && quiet ? await this.sumsOf(reader, tenantId, keys) : null;
      return { rows, exhausted, pruned, current, latest, quiet, sums };
    });
  }

  range(tenantId: string, key: string, after: readonly [RecordKind, string] | null, limit: number): Promise<{ entries: MemberEntry[]; quiet: boolean }> {
    return readSnapshot(this.knex, this.dialect, async (reader) => {
      const quiet = await this.quiet(reader, tenantId, await this.horizon(reader));
      const c = this.collate;
      const bindings: unknown[] = [tenantId, key];
      let where = 'tenant_id = ? AND scope_key = ?';
      if (after) {
        where += ` AND (kind${c}, record_id${c}) > (?, ?)`;
        bindings.push(after[0], after[1]);
      }
      const rows = await reader.all(`SELECT kind, record_id, version FROM sync_members WHERE ${where} ORDER BY kind${c}, record_id${c} LIMIT ?`, [...bindings, limit]);
      return { quiet, entries: rows.map((row) => ({ kind: row.kind as RecordKind, id: String(row.record_id), version: num(row.version), keys: [key] })) };
    });
  }

  async memberships(tenantId: string, kind: RecordKind, ids: readonly string[]): Promise<Map<string, MemberEntry>> {
    return this.membersOf({ dialect: this.dialect, all: (sql, bindings) => this.all(sql, bindings) }, tenantId, kind, ids);
  }

  sums(tenantId: string, keys: readonly string[]): Promise<{ sums: ScopeSum[]; quiet: boolean }> {
    return readSnapshot(this.knex, this.dialect, async (reader) => {
      const quiet = await this.quiet(reader, tenantId, await this.horizon(reader));
      return { quiet, sums: await this.sumsOf(reader, tenantId, keys) };
    });
  }

  eventsByIds(tenantId: string, ids: readonly string[]): Promise<EventRecord[]> {
    return this.rowsByIds('events', tenantId, ids, toEvent);
  }

  patrolsByIds(tenantId: string, ids: readonly string[]): Promise<Patrol[]> {
    return this.rowsByIds('patrols', tenantId, ids, toPatrol);
  }

  /**
   * Rows of a table keyed by (tenant_id, id uuid), a feed page's worth per statement. On
   * PostgreSQL the ids go as one uuid[] parameter: the same plan as an IN list, without
   * binding a thousand parameters one by one.
   */
  private async rowsByIds<T>(table: 'events' | 'patrols', tenantId: string, ids: readonly string[], map: (row: Row) => T): Promise<T[]> {
    const out: T[] = [];
    for (const chunk of chunks([...new Set(ids)], RECORDS)) {
      const query = this.knex(table).where({ tenant_id: tenantId });
      if (this.dialect === 'postgres') query.whereRaw('id = ANY(?::uuid[])', [chunk]);
      else query.whereIn('id', chunk);
      for (const row of (await query) as Row[]) out.push(map(row));
    }
    return out;
  }

  /** PostgreSQL: the snapshot's xmin; SQLite: no horizon (0, unused). */
  private async horizon(reader: SnapshotReader): Promise<number> {
    if (this.dialect !== 'postgres') return 0;
    const rows = await reader.all(`SELECT ${HORIZON_SQL} AS h`, []);
    return num(rows[0]!.h);
  }

  /** Nothing of the tenant visible at or above the horizon: current state is the state at H. */
  private async quiet(reader: SnapshotReader, tenantId: string, horizon: number): Promise<boolean> {
    if (this.dialect !== 'postgres') return true;
    const rows = await reader.all('SELECT EXISTS (SELECT 1 FROM sync_changes WHERE tenant_id = ? AND txid >= ?) AS busy', [tenantId, horizon]);
    return rows[0]!.busy !== true;
  }

  private async sumsOf(reader: SnapshotReader, tenantId: string, keys: readonly string[]): Promise<ScopeSum[]> {
    const found = new Map<string, ScopeSum>();
    for (const chunk of chunks(keys, IDS)) {
      const rows = await reader.all(`SELECT scope_key, SUM(n) AS n, SUM(sum) AS s FROM sync_scope_sums WHERE tenant_id = ? AND scope_key IN ${placeholders(chunk.length)} GROUP BY scope_key`, [tenantId, ...chunk]);
      for (const row of rows) found.set(String(row.scope_key), { key: String(row.scope_key), count: num(row.n), checksum: num(row.s) % MOD });
    }
    return keys.map((key) => found.get(key) ?? { key, count: 0, checksum: 0 });
  }

  private async membersOf(reader: SnapshotReader, tenantId: string, kind: RecordKind, ids: readonly string[]): Promise<Map<string, MemberEntry>> {
    const out = new Map<string, MemberEntry>();
    for (const chunk of chunks([...new Set(ids)], IDS)) {
      const rows = await reader.all(`SELECT record_id, version, scope_key FROM sync_members WHERE tenant_id = ? AND kind = ? AND record_id IN ${placeholders(chunk.length)}`, [tenantId, kind, ...chunk]);
      for (const row of rows) {
        const id = String(row.record_id);
        const entry = out.get(id) ?? { kind, id, version: 0, keys: [] };
        entry.version = Math.max(entry.version, num(row.version));
        entry.keys.push(String(row.scope_key));
        out.set(id, entry);
      }
    }
    for (const entry of out.values()) entry.keys.sort();
    return out;
  }

  /** One statement outside a snapshot. */
  private async all(sql: string, bindings: readonly unknown[]): Promise<Row[]> {
    const result = (await this.knex.raw(sql, bindings as Knex.RawBinding[])) as unknown;
    return this.dialect === 'postgres' ? (result as { rows: Row[] }).rows : (result as Row[]);
  }
}

function toLogRow(row: Row): LogRow {
  return {
    txid: num(row.txid),
    position: num(row.position),
    kind: row.kind as RecordKind,
    id: String(row.record_id),
    op: row.op === 'delete' ? 'delete' : 'put',
    scopes: split(row.scopes),
    oldScopes: split(row.old_scopes),
  };
}
