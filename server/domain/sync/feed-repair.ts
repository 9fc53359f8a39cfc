/**
 * What a laptop uses to repair and explain its mirror (docs/sync.md §Repair): the ids and
 * versions of one scope (`ranges`), current records by id (`records`), and the server's side of
 * `fieldops sync --explain`. Same grants as the feed.
 */
import { isScopeKey } from '../../../protocol/scope-keys.js';
import { DEFAULT_PAGE_CHANGES, MAX_RANGE_ENTRIES, MAX_RECORD_IDS, type RangesPage, type RangesRequest, type RecordKind, type RecordsRequest } from '../../../protocol/sync.js';
import { type Principal, type RequestContext, requirePrincipal } from '../context.js';
import { InputError, NotAllowedError } from '../errors.js';
import { isUuid } from '../ids.js';
import { SyncFeedError } from './feed-errors.js';
import { type FeedChange, type SyncFeedService } from './feed.js';
import { groupKeys, refusal, requireFeedReader } from './grants.js';
import { type FeedCursor, encodeCursor } from './cursor.js';

export interface ScopeExplanation {
  key: string;
  granted: boolean;
  reason: string | null;
  /** The server's count and checksum now (null when not granted). */
  count: number | null;
  checksum: number | null;
  /** Writes were committing: the figures may move; ask again. */
  settling: boolean;
}

export interface RecordExplanation {
  kind: RecordKind;
  id: string;
  /** Its current version (null: never logged, or gone). */
  version: number | null;
  keys: Array<{ key: string; granted: boolean; reason: string | null }>;
  /** Whether a laptop asking for some of its granted keys receives it. */
  served: boolean;
  why: string;
}

/** Records answered by id are not a position in the log: their `after` is never served. */
const NO_CURSOR_STATE: FeedCursor = { v: 1, phase: 'log', snap: { after: null }, start: [0, 0], c: [0, 0], f: '', k: '' };
const NO_CURSOR = encodeCursor(NO_CURSOR_STATE);

export class SyncRepairService {
  constructor(private readonly feed: SyncFeedService) {}

  private get reads() {
    return this.feed.deps.reads;
  }

  private async ready(principal: Principal): Promise<void> {
    if (!(await this.reads.tenantState(principal.tenantId)).backfillDone) throw SyncFeedError.preparing(5);
  }

  /** Why `key` is refused (null: granted), reading the visible groups only for a group key. */
  private async refusalOf(principal: Principal, key: string): Promise<string | null> {
    const groups = key.startsWith('su:group:') ? groupKeys(await this.feed.visibleGroups(principal)) : new Set<string>();
    return refusal(principal, key, groups);
  }

  async ranges(ctx: RequestContext, request: RangesRequest): Promise<RangesPage> {
    const principal = requirePrincipal(ctx);
    requireFeedReader(principal);
    if (!isScopeKey(request.scope)) throw InputError.field('scope', 'invalid_scope_key', 'Not a scope key (patterns are not accepted here).');
    const limit = request.limit ?? DEFAULT_PAGE_CHANGES;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_RANGE_ENTRIES) throw InputError.field('limit', 'out_of_range', `limit is 1 to ${MAX_RANGE_ENTRIES}.`);
    await this.ready(principal);
    const reason = await this.refusalOf(principal, request.scope);
    if (reason !== null) throw new NotAllowedError(`Scope ${request.scope} is not granted: ${reason}.`);
    const after = request.after ? ([request.after.kind, request.after.id.toLowerCase()] as const) : null;
    const { entries, quiet } = await this.reads.range(principal.tenantId, request.scope, after, limit + 1);
    return { entries: entries.slice(0, limit).map(({ kind, id, version }) => ({ kind, id, version })), has_more: entries.length > limit, settling: !quiet };
  }

  /** Current records as puts (the granted keys they are in, their version); gone or not visible: delete. */
  async records(ctx: RequestContext, request: RecordsRequest): Promise<FeedChange[]> {
    const principal = requirePrincipal(ctx);
    requireFeedReader(principal);
    if (request.ids.length > MAX_RECORD_IDS) throw InputError.field('ids', 'too_many', `At most ${MAX_RECORD_IDS} ids.`);
    if (!request.ids.every(isUuid)) throw InputError.field('ids', 'invalid', 'Every id is a UUID.');
    await this.ready(principal);
    const ids = [...new Set(request.ids.map((id) => id.toLowerCase()))];
    const members = await this.reads.memberships(principal.tenantId, request.kind, ids);
    const groups = request.kind === 'subject' ? groupKeys(await this.feed.visibleGroups(principal)) : new Set<string>();
    const stubs = ids.map((id) => {
      const entry = members.get(id);
      const scopes = (entry?.keys ?? []).filter((key) => refusal(principal, key, groups) === null);
      return { kind: request.kind, id, op: scopes.length > 0 ? ('put' as const) : ('delete' as const), version: entry?.version ?? 0, scopes, after: NO_CURSOR_STATE };
    });
    const served = await this.feed.withRecords(principal.tenantId, stubs);
    const found = new Set(served.map((change) => change.id));
    // A put whose record vanished between the two reads is gone: answered as delete.
    const gone = stubs.filter((stub) => stub.op === 'put' && !found.has(stub.id)).map((stub) => ({ ...stub, op: 'delete' as const, scopes: [], record: null, after: NO_CURSOR }));
    return [...served, ...gone].map((change) => ({ ...change, after: NO_CURSOR }));
  }

  /** `scope`: the server's count for a key; `id` with `kind`: why a record is in or out. */
  async explain(ctx: RequestContext, query: { scope?: string; id?: string; kind?: RecordKind }): Promise<{ scope?: ScopeExplanation; record?: RecordExplanation }> {
    requireFeedReader(requirePrincipal(ctx));
    if (!query.scope && !query.id) throw InputError.field('scope', 'required', 'Give scope=<key>, or id=<uuid> with kind=<kind>.');
    if (query.id && !query.kind) throw InputError.field('kind', 'required', 'kind is required with id.');
    const out: { scope?: ScopeExplanation; record?: RecordExplanation } = {};
    if (query.scope) out.scope = await this.explainScope(ctx, query.scope);
    if (query.id && query.kind) out.record = await this.explainRecord(ctx, query.kind, query.id);
    return out;
  }

  async explainScope(ctx: RequestContext, key: string): Promise<ScopeExplanation> {
    const principal = requirePrincipal(ctx);
    requireFeedReader(principal);
    if (!isScopeKey(key)) throw InputError.field('scope', 'invalid_scope_key', 'Not a scope key.');
    await this.ready(principal);
    const reason = await this.refusalOf(principal, key);
    if (reason !== null) return { key, granted: false, reason, count: null, checksum: null, settling: false };
    const { sums, quiet } = await this.reads.sums(principal.tenantId, [key]);
    return { key, granted: true, reason: null, count: sums[0]!.count, checksum: sums[0]!.checksum, settling: !quiet };
  }

  async explainRecord(ctx: RequestContext, kind: RecordKind, id: string): Promise<RecordExplanation> {
    const principal = requirePrincipal(ctx);
    requireFeedReader(principal);
    if (!isUuid(id)) throw InputError.field('id', 'invalid', 'The id is a UUID.');
    await this.ready(principal);
    const entry = (await this.reads.memberships(principal.tenantId, kind, [id.toLowerCase()])).get(id.toLowerCase());
    const groups = kind === 'subject' ? groupKeys(await this.feed.visibleGroups(principal)) : new Set<string>();
    const keys = (entry?.keys ?? []).map((key) => {
      const reason = refusal(principal, key, groups);
      return { key, granted: reason === null, reason };
    });
    const served = keys.some((key) => key.granted);
    const why = !entry
      ? 'The record is in no scope: it does not exist on the server, or has not been logged yet.'
      : served
        ? `A laptop that asks for any of ${keys.filter((k) => k.granted).map((k) => k.key).join(', ')} receives it.`
        : 'You may read none of the keys it is in.';
    return { kind, id: id.toLowerCase(), version: entry?.version ?? null, keys, served, why };
  }
}
