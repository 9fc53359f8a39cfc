/**
 * Checking and repairing the mirror against the server.
 *
 * `repairScope`: one key whose local count/checksum differ from the server's checkpoint. The
 * server's listing of the key (`/sync/ranges`, keyset by kind and id) is compared with what the
 * laptop holds: records missing or at another version are fetched (`/sync/records`, at most
 * MAX_RECORD_IDS per request) and applied under the usual version guard; memberships the server
 * does not list are dropped (and the row with its last one). Then the key is checked once more
 * against the listing.
 *
 * `tamperedRows`: rows whose columns are not what their own `record` gives (edited by hand);
 * `refetch` replaces them from the server.
 */
import type { Knex } from 'knex';
import { MAX_RANGE_ENTRIES, MAX_RECORD_IDS, RECORD_KINDS, type Change, type RangeEntry, type RecordKind } from '../../protocol/sync.js';
import { applyChanges } from './apply.js';
import type { FeedClient } from './client.js';
import { KIND_TABLE, tamperedColumns } from './rows.js';
import { heldMembers, sumOf } from './sums.js';

export interface RepairReport {
  scope: string;
  missing: number;
  extra: number;
  stale: number;
  repaired: boolean;
  /** Why not, when not repaired. */
  note?: string;
}

export interface RepairOptions {
  client: FeedClient;
  knex: Knex;
  /** The keys this laptop was granted: memberships are kept within them. */
  granted: readonly string[];
  wait: (ms: number) => Promise<void>;
}

const SETTLE_TRIES = 5;

async function listScope(client: FeedClient, scope: string, wait: (ms: number) => Promise<void>): Promise<RangeEntry[] | null> {
  for (let attempt = 0; attempt < SETTLE_TRIES; attempt++) {
    const entries: RangeEntry[] = [];
    let after: { kind: RecordKind; id: string } | null = null;
    let settling = false;
    for (;;) {
      const page = await client.ranges({ scope, after, limit: MAX_RANGE_ENTRIES });
      entries.push(...page.entries);
      settling ||= page.settling;
      const last = page.entries[page.entries.length - 1];
      if (!page.has_more || !last) break;
      after = { kind: last.kind, id: last.id };
    }
    if (!settling) return entries;
    await wait(200 * 2 ** attempt);
  }
  return null;
}

export async function repairScope(options: RepairOptions, scope: string): Promise<RepairReport> {
  const { client, knex } = options;
  const listed = await listScope(client, scope, options.wait);
  if (!listed) return { scope, missing: 0, extra: 0, stale: 0, repaired: false, note: 'the server was busy writing; not verified yet' };
  const server = new Map(listed.map((e) => [`${e.kind}\n${e.id}`, e]));
  const held = new Map(((await heldMembers(knex, [scope])).get(scope) ?? []).map((e) => [`${e.kind}\n${e.id}`, e]));
  const missing = listed.filter((e) => !held.has(`${e.kind}\n${e.id}`));
  const stale = listed.filter((e) => held.has(`${e.kind}\n${e.id}`) && held.get(`${e.kind}\n${e.id}`)!.version !== e.version);
  const extra = [...held.values()].filter((e) => !server.has(`${e.kind}\n${e.id}`));
  await refetch(options, [...missing, ...stale], scope);
  await knex.transaction(async (trx) => {
    for (const e of extra) {
      await trx('record_scopes').where({ kind: e.kind, id: e.id, scope_key: scope }).delete();
      if (!(await trx('record_scopes').where({ kind: e.kind, id: e.id }).first())) await trx(KIND_TABLE[e.kind]).where({ id: e.id }).delete();
    }
  });
  const after = sumOf(scope, (await heldMembers(knex, [scope])).get(scope) ?? []);
  const expected = sumOf(scope, listed);
  return { scope, missing: missing.length, extra: extra.length, stale: stale.length, repaired: after.count === expected.count && after.checksum === expected.checksum };
}

/**
 * Fetches records by id and applies them. Each keeps the memberships it has, gains those the
 * server names within the grant, and `scope` (the key it was listed in).
 */
export async function refetch(options: RepairOptions, wanted: ReadonlyArray<{ kind: RecordKind; id: string }>, scope: string | null): Promise<number> {
  const granted = new Set(options.granted);
  let applied = 0;
  for (const kind of RECORD_KINDS) {
    const ids = [...new Set(wanted.filter((e) => e.kind === kind).map((e) => e.id))];
    for (let i = 0; i < ids.length; i += MAX_RECORD_IDS) {
      const changes = await options.client.records(kind, ids.slice(i, i + MAX_RECORD_IDS));
      await options.knex.transaction(async (trx) => {
        const memberships = new Map<string, string[]>();
        const rows: Array<{ id: string; scope_key: string }> = await trx('record_scopes').where({ kind }).whereIn('id', changes.map((c) => c.id)).select('id', 'scope_key');
        for (const row of rows) memberships.set(row.id, [...(memberships.get(row.id) ?? []), row.scope_key]);
        const widened: Change[] = changes.map((c) => (c.op === 'put' ? { ...c, scopes: [...new Set([...(memberships.get(c.id) ?? []), ...c.scopes.filter((k) => granted.has(k)), ...(scope ? [scope] : [])])] } : c));
        applied += (await applyChanges(trx, widened)).put;
      });
    }
  }
  return applied;
}

export interface TamperedRow {
  kind: RecordKind;
  id: string;
  columns: string[];
}

/** Rows of the kinds the feed keeps whose columns or hash do not match their record. */
export async function tamperedRows(knex: Knex, kinds: readonly RecordKind[]): Promise<TamperedRow[]> {
  const out: TamperedRow[] = [];
  for (const kind of kinds) {
    const rows: Array<Record<string, any>> = await knex(KIND_TABLE[kind]).whereNotNull('version').select('*');
    for (const row of rows) {
      const columns = tamperedColumns(kind, row);
      if (columns.length) out.push({ kind, id: row.id, columns });
    }
  }
  return out;
}

/** Rows of the kinds the feed keeps that no scope key justifies. */
export async function unscopedRows(knex: Knex, kinds: readonly RecordKind[]): Promise<Array<{ kind: RecordKind; id: string }>> {
  const out: Array<{ kind: RecordKind; id: string }> = [];
  for (const kind of kinds) {
    const table = KIND_TABLE[kind];
    const rows: Array<{ id: string }> = await knex(table)
      .whereNotExists(function () {
        this.select(knex.raw('1')).from('record_scopes').where('record_scopes.kind', kind).whereRaw('record_scopes.id = ??', [`${table}.id`]);
      })
      .select('id');
    out.push(...rows.map((r) => ({ kind, id: r.id })));
  }
  return out;
}
