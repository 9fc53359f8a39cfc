/**
 * The sync feed's read side (docs/sync.md): pages of changes in the server's commit order for
 * the scope keys a laptop asked for and may see. Knows no HTTP: answers views, the handler
 * presents them with the REST presenters.
 *
 * A first request (cursor null) notes where the log stands, then serves the current state from
 * `sync_members` (keyset by kind, id), then the log from the noted point. Every change is served
 * as the record's state in the page's snapshot: `put` with its current version and the requested
 * keys it is in now, else `remove` (it exists but left them) or `delete`. A record is served once
 * per log page however often it changed in it; versions only grow across pages, so a laptop
 * that ignores changes older than what it holds converges.
 */
import { type ChangeOp, type Checkpoint, DEFAULT_PAGE_CHANGES, type FeedRequest, MAX_PAGE_CHANGES, type RecordKind, type ScopeSum } from '../../../protocol/sync.js';
import { type Principal, type RequestContext, actingUser, requirePrincipal } from '../context.js';
import { InputError } from '../errors.js';
import type { EventDetailsChecker } from '../events/details.js';
import type { Store } from '../ports.js';
import { type FeedCursor, comparePositions, decodeCursor, encodeCursor, fingerprintOf, keySetHash } from './cursor.js';
import { SyncFeedError } from './feed-errors.js';
import { type LogPage, type SyncFeedReads, recordKey } from './feed-ports.js';
import { type RecordView, loadRecordViews } from './feed-views.js';
import { type Grants, checkPreviousKeys, checkRequestedKeys, grantScopes, needsGroups, requireFeedReader } from './grants.js';
import { rekeyed } from './rekey.js';

export type { RecordView } from './feed-views.js';

export interface FeedChange {
  kind: RecordKind;
  id: string;
  op: ChangeOp;
  version: number;
  scopes: string[];
  /** The current record (put only). */
  record: RecordView | null;
  /** The cursor that resumes right after this change (a page cut short ends here). */
  after: string;
}

export interface FeedResult extends Grants {
  changes: FeedChange[];
  cursor: string;
  hasMore: boolean;
  settling: boolean;
  checkpoint: Checkpoint | null;
}

/** Log rows read per change asked for (most rows of a busy tenant may be outside the keys). */
const SCAN_FACTOR = 5;
/** How long a laptop waits while the tenant's backfill runs. */
const PREPARING_RETRY_SECONDS = 5;

interface Stub {
  kind: RecordKind;
  id: string;
  op: ChangeOp;
  version: number;
  scopes: string[];
  after: FeedCursor;
}

export class SyncFeedService {
  constructor(readonly deps: { store: Store; reads: SyncFeedReads; checker: EventDetailsChecker }) {}

  async changes(ctx: RequestContext, request: FeedRequest): Promise<FeedResult> {
    const principal = requirePrincipal(ctx);
    requireFeedReader(principal);
    const { tenantId } = principal;
    const limit = request.limit ?? DEFAULT_PAGE_CHANGES;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_CHANGES) throw InputError.field('limit', 'out_of_range', `limit is 1 to ${MAX_PAGE_CHANGES}.`);
    checkRequestedKeys(request.scopes);
    if (request.previous_scopes !== undefined) checkPreviousKeys(request.previous_scopes);
    const given = request.cursor === null ? null : decodeCursor(request.cursor);
    // The two reads are independent: one round trip instead of two (the grants wait on the
    // backfill check, so a tenant still preparing is answered 503 as before).
    const granting = this.grants(principal, request.scopes);
    granting.catch(() => {});
    const state = await this.deps.reads.tenantState(tenantId);
    if (!state.backfillDone) throw SyncFeedError.preparing(PREPARING_RETRY_SECONDS);
    const grants = await granting;
    const keys = grants.granted;
    const f = fingerprintOf(whoIs(principal));
    const k = keySetHash(keys);
    if (given && given.f !== f) throw SyncFeedError.scopesChanged();
    let cursor: FeedCursor;
    if (given) {
      if (comparePositions(given.phase === 'log' ? given.c : given.start, state.pruned) < 0) throw SyncFeedError.expired();
      cursor = rekeyed(given, keys, k, request.previous_scopes);
    } else {
      const noted = await this.deps.reads.startPosition();
      const start = comparePositions(noted, state.pruned) < 0 ? state.pruned : noted;
      cursor = { v: 1, phase: 'snapshot', snap: { after: null }, start, c: start, f, k };
    }

    const stubs: Stub[] = [];
    let hasMore = false;
    let settling = false;
    let sums: ScopeSum[] | null = null;
    if (cursor.phase === 'snapshot') {
      // A partial snapshot (keys added to a cursor in the log phase) serves the members of its
      // keys only, each with every granted key it is in (the laptop replaces its memberships).
      const of = cursor.snap.keys ?? keys;
      const entries = of.length > 0 ? await this.deps.reads.snapshotPage(tenantId, of, cursor.snap.after, limit, keys) : [];
      for (const entry of entries) {
        cursor = { ...cursor, snap: { ...cursor.snap, after: [entry.kind, entry.id] } };
        stubs.push({ kind: entry.kind, id: entry.id, op: 'put', version: entry.version, scopes: entry.keys, after: cursor });
      }
      if (entries.length < limit) cursor = { v: 1, phase: 'log', snap: { after: null }, start: cursor.start, c: cursor.start, f, k };
      else hasMore = true;
    }
    if (cursor.phase === 'log' && !hasMore) {
      const room = limit - stubs.length;
      if (room === 0) {
        hasMore = true;
      } else {
        const page = await this.deps.reads.logPage(tenantId, keys, cursor.c, room * SCAN_FACTOR);
        if (comparePositions(cursor.c, page.pruned) < 0) throw SyncFeedError.expired();
        const read = readLog(page, new Set(keys), cursor, room);
        // A record the snapshot part of this page served is served once, as the log finds it
        // (later). Safe wherever the page is cut: the log row stays after any cut before it.
        const again = new Set(read.stubs.map((stub) => recordKey(stub.kind, stub.id)));
        for (let i = stubs.length - 1; i >= 0; i--) if (again.has(recordKey(stubs[i]!.kind, stubs[i]!.id))) stubs.splice(i, 1);
        stubs.push(...read.stubs);
        cursor = read.cursor;
        if (read.consumed < page.rows.length || !page.exhausted) hasMore = true;
        else if (page.quiet && page.sums) sums = page.sums;
        else settling = true;
      }
    }
    const text = encodeCursor(cursor);
    return {
      ...grants,
      changes: await this.withRecords(tenantId, stubs),
      cursor: text,
      hasMore,
      settling,
      checkpoint: sums ? { cursor: text, scopes: sums } : null,
    };
  }

  /** Requested ∩ granted (the visible subject groups read only when a key needs them). */
  async grants(principal: Principal, requested: readonly string[]): Promise<Grants> {
    const groups = needsGroups(requested) ? await this.visibleGroups(principal) : [];
    return grantScopes(principal, requested, groups);
  }

  /** The subject groups the caller may view (every group for a superuser or an application). */
  visibleGroups(principal: Principal): Promise<string[]> {
    const viewer = principal.isSuperuser || principal.kind === 'application' ? null : actingUser(principal)!.id;
    return this.deps.reads.visibleGroups(principal.tenantId, viewer);
  }

  /** Attaches the current records to the puts; a put whose record is gone is left out (its delete follows). */
  async withRecords(tenantId: string, stubs: readonly Stub[]): Promise<FeedChange[]> {
    const wanted = new Map<RecordKind, string[]>();
    for (const stub of stubs) if (stub.op === 'put') (wanted.get(stub.kind) ?? wanted.set(stub.kind, []).get(stub.kind)!).push(stub.id);
    const views = new Map<string, RecordView>();
    for (const [kind, ids] of wanted) {
      const found = await loadRecordViews({ repos: this.deps.store.repos, reads: this.deps.reads, checker: this.deps.checker }, tenantId, kind, ids);
      for (const [id, view] of found) views.set(recordKey(kind, id), view);
    }
    const out: FeedChange[] = [];
    for (const stub of stubs) {
      const record = stub.op === 'put' ? views.get(recordKey(stub.kind, stub.id)) : null;
      if (record === undefined) continue;
      // `after` is read for the one change a page is cut at (if any): encoded on demand.
      const cursor = stub.after;
      out.push({ kind: stub.kind, id: stub.id, op: stub.op, version: stub.version, scopes: stub.scopes, record, get after() { return encodeCursor(cursor); } });
    }
    return out;
  }
}

/**
 * Turns log rows into changes, at most `room`, each record once. A row none of whose keys
 * (before or after it) is requested is passed over; the cursor moves past every row consumed.
 */
function readLog(page: LogPage, keys: ReadonlySet<string>, from: FeedCursor, room: number): { stubs: Stub[]; cursor: FeedCursor; consumed: number } {
  const stubs: Stub[] = [];
  const seen = new Set<string>();
  let cursor = from;
  let consumed = 0;
  for (const row of page.rows) {
    if (stubs.length >= room) break;
    consumed++;
    cursor = { ...cursor, c: [row.txid, row.position] };
    const key = recordKey(row.kind, row.id);
    if (seen.has(key) || !(row.scopes.some((k) => keys.has(k)) || row.oldScopes.some((k) => keys.has(k)))) continue;
    seen.add(key);
    const now = page.current.get(key);
    if (now) stubs.push({ kind: row.kind, id: row.id, op: 'put', version: now.version, scopes: now.keys, after: cursor });
    else stubs.push({ kind: row.kind, id: row.id, op: row.op === 'delete' ? 'delete' : 'remove', version: page.latest.get(key) ?? row.position, scopes: [], after: cursor });
  }
  return { stubs, cursor, consumed };
}

/** What the fingerprint binds a cursor to. */
export function whoIs(principal: Principal): { tenantId: string; userId: string; profileId: string | null } {
  if (principal.kind === 'application') return { tenantId: principal.tenantId, userId: `app:${principal.client.id}`, profileId: null };
  return { tenantId: principal.tenantId, userId: principal.user.id, profileId: principal.profile?.id ?? null };
}
