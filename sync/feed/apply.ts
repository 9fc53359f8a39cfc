/**
 * Applying one page of the feed: each mirror transaction holds a segment of the page's records,
 * their scope memberships and the cursor that resumes right after them (the last one also the
 * checkpoint with the local sums it was compared with). A process killed at any point leaves the
 * mirror at a committed cursor with exactly the records before it, so a rerun asks again from
 * there: it re-sends at most one segment (the server offers a resume point about every tenth
 * of a page; an older server's page is one segment).
 *
 * Per record: a change older than the version held is ignored (a repair may have fetched a newer
 * one); `put` replaces the row and its memberships; `delete` and `remove` (and a put with no
 * requested scope left) delete the row and its memberships.
 */
import type { Knex } from 'knex';
import type { Change, FeedPage, RecordKind, ScopeSum } from '../../protocol/sync.js';
import { KIND_TABLE, rowOf } from './rows.js';
import { setState, sweepUnscoped } from './state.js';
import { localSums, mismatches } from './sums.js';

const CHUNK = 200;

export interface ApplyCounts {
  /** Records written (new or changed). */
  put: number;
  /** Rows deleted (deleted on the server, or out of the laptop's scopes). */
  deleted: number;
  /** Changes older than what the mirror held. */
  ignored: number;
  byKind: Partial<Record<RecordKind, { put: number; deleted: number }>>;
}

export interface PageResult extends ApplyCounts {
  swept: number;
  /** On a checkpoint page: the keys whose local sums differ from the server's. */
  mismatched: Array<{ server: ScopeSum; local: ScopeSum }>;
}

export const emptyCounts = (): ApplyCounts => ({ put: 0, deleted: 0, ignored: 0, byKind: {} });

/** Applies changes in `trx` (no cursor): shared by the pages and the repair of a scope. */
export async function applyChanges(trx: Knex.Transaction, changes: readonly Change[], counts: ApplyCounts = emptyCounts()): Promise<ApplyCounts> {
  // The newest change per record wins (a page may carry one record twice).
  const latest = new Map<string, Change>();
  for (const change of changes) {
    const key = `${change.kind}\n${change.id}`;
    const held = latest.get(key);
    if (!held || held.version <= change.version) latest.set(key, change);
  }
  const byKind = new Map<RecordKind, Change[]>();
  for (const change of latest.values()) byKind.set(change.kind, [...(byKind.get(change.kind) ?? []), change]);
  for (const [kind, list] of byKind) {
    const table = KIND_TABLE[kind];
    const tally = (counts.byKind[kind] ??= { put: 0, deleted: 0 });
    for (let i = 0; i < list.length; i += CHUNK) {
      const chunk = list.slice(i, i + CHUNK);
      const ids = chunk.map((c) => c.id);
      const held = new Map<string, number | null>((await trx(table).whereIn('id', ids).select('id', 'version')).map((r: { id: string; version: number | string | null }) => [r.id, r.version === null ? null : Number(r.version)]));
      const accepted = chunk.filter((c) => {
        const version = held.get(c.id);
        const older = version !== undefined && version !== null && c.version < version;
        if (older) counts.ignored++;
        return !older;
      });
      if (accepted.length === 0) continue;
      await trx('record_scopes').where({ kind }).whereIn('id', accepted.map((c) => c.id)).delete();
      const puts = accepted.filter((c) => c.op === 'put' && c.scopes.length > 0 && c.record);
      const gone = accepted.filter((c) => !puts.includes(c)).map((c) => c.id).filter((id) => held.has(id));
      if (gone.length) {
        await trx(table).whereIn('id', gone).delete();
        counts.deleted += gone.length;
        tally.deleted += gone.length;
      }
      if (puts.length) {
        const rows = puts.map((c) => withRevision(rowOf(kind, c.id, c.record!, c.etag, c.version), c));
        await trx(table).insert(rows).onConflict('id').merge();
        const memberships = puts.flatMap((c) => [...new Set(c.scopes)].map((scope_key) => ({ kind, id: c.id, scope_key })));
        for (let j = 0; j < memberships.length; j += 300) await trx('record_scopes').insert(memberships.slice(j, j + 300));
        counts.put += puts.length;
        tally.put += puts.length;
      }
    }
  }
  return counts;
}

/**
 * A pulled row's `revision` (what an offline update is based on, issue 26 §2): the record's own,
 * else the change's (`Change.revision`); catalog rows have no such column.
 */
function withRevision(row: Record<string, unknown>, change: Change): Record<string, unknown> {
  if (!('revision' in row) || row.revision !== null) return row;
  return typeof change.revision === 'number' ? { ...row, revision: change.revision } : row;
}

/**
 * Applies a page and commits it with its cursor; compares a checkpoint with the rows now held.
 * `previous`: the granted keys the request's cursor was made with. Keys the page no longer grants
 * (a day that left the window, a permission revoked, a group no longer visible) lose their
 * memberships, and the rows no granted key justifies go, in the first transaction; while a
 * reset's snapshot is under way (`sweep`) that waits for its end, which sweeps anyway.
 *
 * A page with `resume_points` is committed in segments, each ending at a point and storing the
 * point's cursor (the last segment stores the page's cursor, the sweep and the checkpoint): a
 * process killed while applying a page of 1000 loses at most one segment (about a tenth of the
 * page), not the page. Without points (an older server), the page is one transaction.
 */
export async function applyPage(knex: Knex, page: FeedPage, options: { sweep: boolean; previous?: readonly string[] }): Promise<PageResult> {
  const ends = segmentEnds(page);
  const counts = emptyCounts();
  let swept = 0;
  let mismatched: PageResult['mismatched'] = [];
  let from = 0;
  for (let s = 0; s < ends.length; s++) {
    const { end, cursor } = ends[s]!;
    const first = s === 0;
    const last = s === ends.length - 1;
    await knex.transaction(async (trx) => {
      if (first) {
        const dropped = (options.previous ?? []).filter((key) => !page.granted.includes(key));
        for (let i = 0; i < dropped.length; i += 300) await trx('record_scopes').whereIn('scope_key', dropped.slice(i, i + 300)).delete();
        if (dropped.length > 0 && !options.sweep) swept += await sweepUnscoped(trx, page.granted, dropped);
      }
      await applyChanges(trx, page.changes.slice(from, end), counts);
      await setState(trx, { cursor, granted: JSON.stringify(page.granted) });
      if (!last) return;
      if (!page.has_more && options.sweep) swept += await sweepUnscoped(trx, page.granted);
      if (page.checkpoint) {
        const local = await localSums(trx, page.checkpoint.scopes.map((sum) => sum.key));
        mismatched = mismatches(page.checkpoint.scopes, local);
        await setState(trx, { checkpoint: JSON.stringify({ ...page.checkpoint, local, checked_at: new Date().toISOString() }) });
      }
    });
    from = end;
  }
  return { ...counts, swept, mismatched };
}

/**
 * Where each segment ends (exclusive) and the cursor it stores: the page's valid resume points in
 * increasing order, then the page's end with the page's cursor. A point outside the page or out
 * of order is ignored (the page is then cut at fewer places, never wrongly).
 */
function segmentEnds(page: FeedPage): Array<{ end: number; cursor: string }> {
  const ends: Array<{ end: number; cursor: string }> = [];
  let last = 0;
  for (const point of page.resume_points ?? []) {
    const end = point.index + 1;
    if (!Number.isInteger(point.index) || end <= last || end >= page.changes.length || typeof point.cursor !== 'string') continue;
    ends.push({ end, cursor: point.cursor });
    last = end;
  }
  ends.push({ end: page.changes.length, cursor: page.cursor });
  return ends;
}
