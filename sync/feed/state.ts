/**
 * The feed's state in the mirror (table `feed_state`, migrations/mirror/20261126_0101_change_feed.ts)
 * and the two ways of starting over. Every function takes the transaction (or knex) to run in, so
 * a caller commits state together with the rows it describes.
 */
import type { Knex } from 'knex';
import { RECORD_KINDS, type Checkpoint, type RecordKind } from '../../protocol/sync.js';
import { KIND_TABLE, kindFamily } from './rows.js';

export interface FeedState {
  cursor: string | null;
  /** The `--scope` values in force (sorted; [] = the default). */
  scopes: string[] | null;
  /** The scope keys the cursor was taken with. */
  keys: string[] | null;
  granted: string[];
  identity: string | null;
  checkpoint: Checkpoint | null;
  /** '1' the server has a feed, '0' it answered 404, null never asked. */
  serverHasFeed: string | null;
  fallbackWarned: boolean;
  /** Rows not justified by any scope are deleted once the next catch-up completes. */
  sweep: boolean;
}

const json = <T>(text: string | undefined, fallback: T): T => {
  if (text === undefined) return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
};

export async function readFeedState(db: Knex | Knex.Transaction): Promise<FeedState> {
  const rows: Array<{ key: string; value: string }> = await db('feed_state').select('key', 'value');
  const map = new Map(rows.map((r) => [r.key, r.value]));
  return {
    cursor: map.get('cursor') ?? null,
    scopes: json<string[] | null>(map.get('scopes'), null),
    keys: json<string[] | null>(map.get('keys'), null),
    granted: json<string[]>(map.get('granted'), []),
    identity: map.get('identity') ?? null,
    checkpoint: json<Checkpoint | null>(map.get('checkpoint'), null),
    serverHasFeed: map.get('server_has_feed') ?? null,
    fallbackWarned: map.get('fallback_warned') === '1',
    sweep: map.get('sweep') === '1',
  };
}

export async function setState(db: Knex | Knex.Transaction, values: Record<string, string | null>): Promise<void> {
  for (const [key, value] of Object.entries(values)) {
    if (value === null) await db('feed_state').where({ key }).delete();
    else await db('feed_state').insert({ key, value }).onConflict('key').merge();
  }
}

/**
 * Starts the feed over, keeping the outbox. `soft` (same server and user: a changed scope set, a
 * 410, `--reset`): the rows stay readable until the new snapshot replaces them, their versions
 * are forgotten (so the snapshot overwrites each) and what the snapshot does not bring back is
 * swept when it completes. `hard` (another server or user): the rows go at once.
 */
export async function resetFeed(trx: Knex.Transaction, mode: 'soft' | 'hard'): Promise<void> {
  await trx('record_scopes').delete();
  for (const kind of RECORD_KINDS) {
    if (mode === 'hard') await trx(KIND_TABLE[kind]).delete();
    else await trx(KIND_TABLE[kind]).update({ version: null });
  }
  await setState(trx, { cursor: null, keys: null, granted: null, checkpoint: null, sweep: '1' });
}

/**
 * Deletes the held rows of the kinds the grant covers that no scope key justifies (a record that
 * left every key while the laptop was not listening: kept over a reset, or held only through a
 * day key that left the window). Kinds no granted key covers are left alone: the feed does not
 * carry them for this laptop (a catalog then comes from the conditional GETs); except the kinds
 * of `dropped` keys (no longer granted): the feed carried those rows, and nothing justifies them.
 */
export async function sweepUnscoped(trx: Knex.Transaction, granted: readonly string[], dropped: readonly string[] = []): Promise<number> {
  let swept = 0;
  for (const kind of RECORD_KINDS) {
    const family = kindFamily(kind);
    if (!granted.some((key) => key.startsWith(family)) && !dropped.some((key) => key.startsWith(family))) continue;
    const table = KIND_TABLE[kind];
    swept += await trx(table)
      .whereNotExists(function () {
        this.select(trx.raw('1')).from('record_scopes').where('record_scopes.kind', kind).whereRaw('record_scopes.id = ??', [`${table}.id`]);
      })
      .delete();
  }
  await setState(trx, { sweep: null });
  return swept;
}

/** Kinds whose rows the feed keeps for this grant (for the catalog sync: which GETs to skip). */
export function kindsCarried(granted: readonly string[]): RecordKind[] {
  return RECORD_KINDS.filter((kind) => granted.some((key) => key.startsWith(kindFamily(kind))));
}
