/**
 * Conflicts kept with both values, and the revision history, as headquarters and the laptop see
 * them (issue 26 §3): list, a record's history, and settling a conflict with mine or theirs.
 *
 * Settling: the value a conflict left standing is theirs (`hold`, `server_wins`) or mine
 * (`last_writer_wins`). Choosing the value that stands settles without a write; choosing the
 * other writes it as a new revision (history action `settled`), but only while the field still
 * holds the standing value: otherwise 409 `conflict_stale` with the value it holds now. A
 * conflict a person settled answers the same choice again (idempotent) and refuses the other
 * (409 `conflict_settled`); one the policy settled may still be chosen either way.
 */
import { MERGE_KINDS, type MergeKind, sameValue } from '../../../protocol/merge-fields.js';
import type { Clock } from '../../db/time.js';
import { type RequestContext, actingUser, requirePermission, requirePrincipal, hasPermission } from '../context.js';
import { ConflictError, InputError, NotFoundError } from '../errors.js';
import { isUuid } from '../ids.js';
import type { Permission } from '../permissions.js';
import type { Repositories, Store } from '../ports.js';
import { ConflictSettledError } from './errors.js';
import type { ConflictRow, ConflictStatus, RevisionRow } from './ports.js';

/** One field's settling write, as the record's service performs it. */
export interface SettledChange {
  path: string;
  value: unknown;
  /** The value the field must still hold (else ConflictStaleError). */
  standing: unknown;
  /** The line the record's `updates` get. */
  line: string;
  /** Runs in the write's transaction with the revision it made. */
  inTransaction(repos: Repositories, revision: number): Promise<void>;
}

/** EventService and PatrolService: write one field of a record as a settled revision; answer the revision. */
export interface SettlingWriter {
  writeSettled(ctx: RequestContext, id: string, change: SettledChange): Promise<number>;
}

export interface RecordHistory {
  kind: MergeKind;
  id: string;
  revision: number;
  /** Newest first. */
  revisions: RevisionRow[];
  /** Newest first. */
  conflicts: ConflictRow[];
}

export type ConflictChoice = 'mine' | 'theirs';

const LIST_LIMIT = 500;
const HISTORY_LIMIT = 1000;
const permission = (verb: 'view' | 'change', kind: MergeKind) => `${verb}_${kind}` as Permission;
const shown = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value ?? null));

export class ConflictService {
  constructor(private readonly deps: { store: Store; clock: Clock; events: SettlingWriter; patrols: SettlingWriter }) {}

  /** Open (or settled) conflicts of the caller's tenant, of the kinds the caller may view. */
  async list(ctx: RequestContext, filter: { status?: string; kind?: string; record?: string } = {}): Promise<ConflictRow[]> {
    const principal = requirePrincipal(ctx);
    const status = filter.status === undefined || filter.status === '' ? undefined : readEnum('status', filter.status, ['open', 'settled'] as const);
    const kinds = filter.kind ? [readEnum('kind', filter.kind, MERGE_KINDS)] : MERGE_KINDS.filter((kind) => hasPermission(principal, permission('view', kind)));
    if (filter.kind) requirePermission(ctx, permission('view', kinds[0]!));
    else if (kinds.length === 0) requirePermission(ctx, 'view_event', 'view_patrol');
    if (filter.record && !isUuid(filter.record)) throw InputError.field('record', 'invalid', 'record is a record id (UUID).', ['Leave it out to list every record.']);
    const rows: ConflictRow[] = [];
    for (const kind of kinds) {
      rows.push(...(await this.deps.store.repos.conflicts.list(principal.tenantId, { status: status as ConflictStatus | undefined, kind, recordId: filter.record?.toLowerCase() }, LIST_LIMIT)));
    }
    return rows.sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? -1 : 1)).slice(0, LIST_LIMIT);
  }

  /** The record's revisions (who, which device, which fields, merged) and its conflicts. */
  async history(ctx: RequestContext, kind: string, id: string): Promise<RecordHistory> {
    requirePermission(ctx, 'view_event', 'view_patrol');
    const recordKind = readEnum('kind', kind, MERGE_KINDS);
    const { tenantId } = requirePermission(ctx, permission('view', recordKind));
    const { repos } = this.deps.store;
    const recordId = id.toLowerCase();
    const record = !isUuid(id) ? null : recordKind === 'event' ? await repos.events.find(tenantId, recordId) : await repos.patrols.findPatrol(tenantId, recordId);
    if (!record) throw new NotFoundError(`No such ${recordKind}.`);
    return {
      kind: recordKind, id: record.id, revision: record.revision,
      revisions: await repos.revisions.list(tenantId, recordKind, record.id, HISTORY_LIMIT),
      conflicts: await repos.conflicts.list(tenantId, { kind: recordKind, recordId: record.id }, HISTORY_LIMIT),
    };
  }

  async get(ctx: RequestContext, conflictId: string): Promise<ConflictRow> {
    const principal = requirePermission(ctx, 'view_event', 'view_patrol');
    const row = isUuid(conflictId) ? await this.deps.store.repos.conflicts.find(principal.tenantId, conflictId.toLowerCase()) : null;
    if (!row) throw new NotFoundError('No such conflict.');
    requirePermission(ctx, permission('view', row.kind));
    return row;
  }

  /** Settles a conflict with `{choice: "mine" | "theirs"}` (the batched push's `conflict.resolve`). */
  async resolve(ctx: RequestContext, conflictId: string, body: unknown): Promise<ConflictRow> {
    requirePermission(ctx, 'change_event', 'change_patrol');
    const choice = readChoice(body);
    const principal = requirePrincipal(ctx);
    const found = isUuid(conflictId) ? await this.deps.store.repos.conflicts.find(principal.tenantId, conflictId.toLowerCase()) : null;
    if (!found) throw new NotFoundError('No such conflict.');
    requirePermission(ctx, permission('change', found.kind));
    if (found.status === 'settled' && found.settledBy !== 'policy') {
      if (found.settledBy === choice) return found;
      throw new ConflictSettledError(`The conflict on ${found.field} was settled already with ${found.settledBy}.`, found.settledBy!);
    }
    const standing = found.status === 'settled' && found.policy === 'last_writer_wins' ? found.mine : found.theirs;
    const target = choice === 'mine' ? found.mine : found.theirs;
    const userId = actingUser(principal)?.id ?? null;
    const settle = async (repos: Repositories, revision: number) => {
      const settled: ConflictRow = { ...found, status: 'settled', settledBy: choice, settledUserId: userId, settledRevision: revision, settledAt: this.deps.clock.now() };
      if (!(await repos.conflicts.settle(settled, { status: found.status, settledBy: found.settledBy }))) throw new ConflictError('The conflict was settled meanwhile; read it again.');
      return settled;
    };
    if (sameValue(target, standing)) {
      const revision = await this.currentRevision(found);
      return this.deps.store.transaction((repos) => settle(repos, revision));
    }
    let settled: ConflictRow | null = null;
    const writer = found.kind === 'event' ? this.deps.events : this.deps.patrols;
    await writer.writeSettled(ctx, found.recordId, {
      path: found.field, value: target, standing,
      line: `Conflict on ${found.field} settled with ${choice === 'mine' ? 'the offline value' : 'the server value'}: ${shown(target)}`,
      inTransaction: async (repos, revision) => {
        settled = await settle(repos, revision);
      },
    });
    return settled!;
  }

  private async currentRevision(row: ConflictRow): Promise<number> {
    const { repos } = this.deps.store;
    const record = row.kind === 'event' ? await repos.events.find(row.tenantId, row.recordId) : await repos.patrols.findPatrol(row.tenantId, row.recordId);
    if (!record) throw new NotFoundError(`The ${row.kind} of this conflict is gone.`);
    return record.revision;
  }
}

function readChoice(body: unknown): ConflictChoice {
  const choice = body && typeof body === 'object' && !Array.isArray(body) ? (body as { choice?: unknown }).choice : undefined;
  if (choice === 'mine' || choice === 'theirs') return choice;
  throw InputError.field('choice', 'invalid', 'choice is "mine" or "theirs".', ['Send {"choice": "mine"} to keep the offline value, {"choice": "theirs"} to keep the server\'s.']);
}

function readEnum<T extends string>(field: string, value: string, allowed: readonly T[]): T {
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw InputError.field(field, 'invalid', `${field} is one of ${allowed.join(', ')}.`, [`For example ${allowed[0]}.`]);
}
