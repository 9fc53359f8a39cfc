/**
 * What kill-points.test.ts measures, kept apart from its cases: the site it seeds through the
 * real API, a mirror read straight from its SQLite file after a SIGKILL, the "whole pages only"
 * check, and the re-send count of a rerun.
 *
 * Definitions (the "re-sends at most 10% of what it had received"):
 * - received by a run: the records of every feed answer (`/sync/changes` pages, `/sync/records`)
 *   the proxy wrote out whole to that run (a killed run cannot print its `feed.received`);
 * - missing before a rerun: the records of the server's set (a reference mirror pulled without
 *   a proxy, verified) that the killed mirror does not hold (no row, or no membership);
 * - re-sent by a rerun that completes: its `feed.received` (plus the records its repairs fetched)
 *   minus what was missing; by a rerun that is killed too: the records it was sent that an earlier
 *   run of the same mirror had been sent already.
 */
import Database from 'better-sqlite3';
import { decodeCursor } from '../../../server/domain/sync/cursor.js';
import { KIND_TABLE } from '../../../sync/feed/rows.js';
import type { RecordKind } from '../../../protocol/sync.js';
import type { FeedAnswer, FeedProxy } from './feed-proxy.js';
import type { Api } from './real-server.js';

/** The laptop's scope: 1° cells, not day keys, so a run across midnight changes no key set. */
export const SCOPE = 'bbox:34.5,-2.5,37.5,-0.5';
/** One point in each of four cells of SCOPE; events go round them. */
const POINTS = [
  { latitude: -1.28, longitude: 36.84 },
  { latitude: -0.7, longitude: 36.2 },
  { latitude: -2.2, longitude: 35.5 },
  { latitude: -1.5, longitude: 34.8 },
];
export const CELLS = POINTS.length;


/** A category, a type and `count` events round the four cells, eight requests at a time. */
export async function seedSite(api: Api, count: number): Promise<string[]> {
  await api('POST', '/api/v2.0/activity/eventcategories', { value: 'monitoring', display: 'Monitoring' });
  await api('POST', '/api/v2.0/activity/eventtypes', { value: 'wildlife_sighting', display: 'Wildlife sighting', category: 'monitoring', geometry_type: 'Point' });
  const ids: string[] = new Array(count);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < count; i = next++) {
      const created = await api('POST', '/api/v1.0/activity/events', { event_type: 'wildlife_sighting', time: new Date(Date.now() - i * 60_000).toISOString(), location: POINTS[i % CELLS], event_details: {} });
      ids[i] = created.id;
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return ids;
}

export const recordKey = (kind: string, id: string) => `${kind}\n${id}`;

/** A mirror as its file says after a kill: what SQLite makes of it, and what the feed left in it. */
export interface MirrorState {
  integrity: string;
  cursor: string | null;
  /** (kind, id) → the scope keys it is a member of. */
  memberships: Map<string, string[]>;
  /** (kind, id) of every row in the feed's tables. */
  rows: Set<string>;
}

export function readMirror(file: string): MirrorState {
  const db = new Database(file, { fileMustExist: true });
  try {
    const integrity = db.pragma('integrity_check', { simple: true }) as string;
    const cursor = (db.prepare("select value from feed_state where key = 'cursor'").get() as { value: string } | undefined)?.value ?? null;
    const memberships = new Map<string, string[]>();
    for (const m of db.prepare('select kind, id, scope_key from record_scopes order by scope_key').all() as Array<{ kind: string; id: string; scope_key: string }>) {
      const key = recordKey(m.kind, m.id);
      memberships.set(key, [...(memberships.get(key) ?? []), m.scope_key]);
    }
    const rows = new Set<string>();
    for (const [kind, table] of Object.entries(KIND_TABLE)) for (const r of db.prepare(`select id from ${table}`).all() as Array<{ id: string }>) rows.add(recordKey(kind, r.id));
    return { integrity, cursor, memberships, rows };
  } finally {
    db.close();
  }
}

/** Records held whole: a row and at least one membership. */
export function held(mirror: MirrorState): Set<string> {
  return new Set([...mirror.rows].filter((key) => mirror.memberships.has(key)));
}

const sorted = (keys: Iterable<string>) => [...keys].sort();

/**
 * What a mirror must hold if it holds whole pages only: exactly the records of the server's set
 * the stored cursor covers, each with all its memberships, and no other row. A first pull is a
 * snapshot in (kind, id) byte order, and its cursor names the last record it served
 * (server/domain/sync/cursor.ts); once in the log phase it covers the whole set.
 */
export function coveredByCursor(mirror: MirrorState, reference: MirrorState): { expected: string[]; rows: string[]; memberships: string[]; wanted: string[] } {
  let covers = (_key: string) => false;
  if (mirror.cursor !== null) {
    const cursor = decodeCursor(mirror.cursor);
    const after = cursor.snap.after;
    covers = cursor.phase === 'log' ? () => true : after === null ? () => false : (key) => key <= recordKey(after[0], after[1]);
  }
  const expected = sorted([...reference.memberships.keys()].filter(covers));
  const flat = (m: Map<string, string[]>, keys: Iterable<string>) => sorted([...keys].flatMap((key) => (m.get(key) ?? []).map((scope) => `${key}\n${scope}`)));
  return { expected, rows: sorted(mirror.rows), memberships: flat(mirror.memberships, mirror.memberships.keys()), wanted: flat(reference.memberships, expected) };
}

/** The records the proxy wrote out whole to the run of `epoch`. */
export function sentIn(proxy: FeedProxy, epoch: number, endpoints: ReadonlyArray<FeedAnswer['endpoint']> = ['changes', 'records']): string[] {
  return proxy.answers.filter((a) => a.epoch === epoch && endpoints.includes(a.endpoint)).flatMap((a) => a.records.map((r) => recordKey(r.kind, r.id)));
}

/** Of the records sent to the run of `epoch`, those an earlier run of the same mirror had been sent. */
export function sentAgain(proxy: FeedProxy, epoch: number, since: number): number {
  const before = new Set(proxy.answers.filter((a) => a.epoch >= since && a.epoch < epoch).flatMap((a) => a.records.map((r) => recordKey(r.kind, r.id))));
  return sentIn(proxy, epoch).filter((key) => before.has(key)).length;
}

/** The cursor of the last page written whole to the run of `epoch` (null: none). */
export function lastCursorSent(proxy: FeedProxy, epoch: number): string | null {
  return proxy.answers.filter((a) => a.epoch === epoch && a.endpoint === 'changes').at(-1)?.cursor ?? null;
}

export const eventKeys = (ids: readonly string[]) => sorted(ids.map((id) => recordKey('event' satisfies RecordKind, id)));
