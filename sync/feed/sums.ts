/**
 * The laptop's side of a checkpoint: count and checksum (protocol/checksum.ts) per scope key,
 * computed from `record_scopes` joined with the rows actually held, at the versions held. A
 * membership whose row is gone (deleted by hand) is not counted, so the check catches it.
 */
import type { Knex } from 'knex';
import { addTerm, recordTerm } from '../../protocol/checksum.js';
import { RECORD_KINDS, type RecordKind, type ScopeSum } from '../../protocol/sync.js';
import { KIND_TABLE } from './rows.js';

export interface HeldEntry {
  kind: RecordKind;
  id: string;
  version: number | null;
}

/** The held members of each key in `keys` (all keys when null), with their row's version. */
export async function heldMembers(db: Knex | Knex.Transaction, keys: readonly string[] | null): Promise<Map<string, HeldEntry[]>> {
  const out = new Map<string, HeldEntry[]>();
  for (const key of keys ?? []) out.set(key, []);
  for (const kind of RECORD_KINDS) {
    const table = KIND_TABLE[kind];
    const query = db('record_scopes').join(table, `${table}.id`, 'record_scopes.id').where('record_scopes.kind', kind).select('record_scopes.scope_key as key', 'record_scopes.id as id', `${table}.version as version`);
    const rows: Array<{ key: string; id: string; version: number | string | null }> = keys && keys.length <= 500 ? await query.whereIn('record_scopes.scope_key', [...keys]) : await query;
    for (const row of rows) {
      if (keys && !out.has(row.key)) continue;
      const list = out.get(row.key) ?? [];
      list.push({ kind, id: row.id, version: row.version === null ? null : Number(row.version) });
      out.set(row.key, list);
    }
  }
  return out;
}

export function sumOf(key: string, entries: readonly HeldEntry[]): ScopeSum {
  let checksum = 0;
  for (const e of entries) checksum = addTerm(checksum, recordTerm(e.kind, e.id, e.version ?? -1));
  return { key, count: entries.length, checksum };
}

export async function localSums(db: Knex | Knex.Transaction, keys: readonly string[]): Promise<ScopeSum[]> {
  const members = await heldMembers(db, keys);
  return keys.map((key) => sumOf(key, members.get(key) ?? []));
}

/** Keys whose local sums differ from the server's. */
export function mismatches(server: readonly ScopeSum[], local: readonly ScopeSum[]): Array<{ server: ScopeSum; local: ScopeSum }> {
  const mine = new Map(local.map((s) => [s.key, s]));
  return server
    .map((s) => ({ server: s, local: mine.get(s.key) ?? { key: s.key, count: 0, checksum: 0 } }))
    .filter(({ server: s, local: l }) => s.count !== l.count || s.checksum !== l.checksum);
}
