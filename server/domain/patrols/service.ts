import { randomUUID } from 'node:crypto';
import type { Clock } from '../../db/time.js';
import { type Principal, type RequestContext, actingUser, requirePermission } from '../context.js';
import { ConflictError, InputError, NotFoundError, PreconditionFailedError } from '../errors.js';
import { isUuid } from '../ids.js';
import type { Repositories, Store } from '../ports.js';
import { type IfMatch, type WritePrecondition } from '../client-input.js';
import { patrolEtag } from './etag.js';
import type { PatrolListFilter } from './filters.js';
import { type PatrolInput, type SegmentInput, readPatrolBody, readSegmentBody } from './input.js';
import type { Patrol, PatrolSegment, PatrolState, PatrolView, SegmentView } from './model.js';
import { draftNewPatrol, patrolUpdate } from './create.js';
import { applySegmentInput } from './segments.js';
import { applyPatrolFields, applySegmentFields, flattenPatrol, invalidSegmentRange } from '../merge/fields-patrol.js';
import { ChangedSinceBaseError, ConflictStaleError } from '../merge/errors.js';
import type { SettledChange } from '../merge/conflicts.js';
import { recordRevision } from '../merge/history.js';
import { parseFieldPath, sameValue } from '../../../protocol/merge-fields.js';
import { type PatrolWritePlan, type SegmentWrite, planPatrolWrite } from '../merge/patrol-update.js';
import { type MergePlan, finishMerge, replayedOutcome } from '../merge/record-merge.js';
import { loadPatrolViews, loadSegmentViews } from './views.js';
import { automaticState, patrolWindow } from './window.js';

const LOCK = 'patrols';

/**
 * Patrols and their segments (CONTRACT §6). Writes are one transaction each; after every
 * write the patrol's window and its automatic state are recomputed from all its segments, and
 * every state change is recorded in its updates.
 */
export class PatrolService {
  constructor(private readonly deps: { store: Store; clock: Clock }) {}

  async list(ctx: RequestContext, filter: PatrolListFilter, page: { offset: number; limit: number }) {
    const { tenantId } = requirePermission(ctx, 'view_patrol');
    const { repos } = this.deps.store;
    let patrolTypeIds: string[] | null = null;
    if (filter.patrolTypes) {
      const found = await Promise.all(filter.patrolTypes.map((key) => repos.patrolTypes.find(tenantId, key)));
      patrolTypeIds = found.filter((type) => type !== null).map((type) => type!.id);
    }
    const { patrolTypes, ...rest } = filter;
    const { total, patrols } = await repos.patrols.listPatrols(tenantId, { ...rest, patrolTypeIds }, this.deps.clock.now(), page);
    return { total, views: await loadPatrolViews(repos, tenantId, patrols) };
  }

  async get(ctx: RequestContext, id: string): Promise<PatrolView> {
    const { tenantId } = requirePermission(ctx, 'view_patrol');
    const patrol = await this.findPatrol(this.deps.store.repos, tenantId, id);
    return (await loadPatrolViews(this.deps.store.repos, tenantId, [patrol]))[0]!;
  }

  /**
   * A client-supplied id that exists already is 409 and changes nothing (offline retries; two
   * concurrent creates of one id meet at the primary key, also 409). The create is decided in
   * memory from reads (see create.ts), then written by one atomic repository call that assigns
   * the serial: no tenant-wide lock, and no transaction held open across round trips.
   */
  async create(ctx: RequestContext, body: unknown): Promise<PatrolView> {
    const { tenantId } = requirePermission(ctx, 'add_patrol');
    const input = readPatrolBody(body);
    const { repos } = this.deps.store;
    if (input.id && (await repos.patrols.findPatrol(tenantId, input.id))) throw new ConflictError('A patrol with this id already exists.');
    const { write, view } = await draftNewPatrol(repos, ctx, tenantId, input.id ?? randomUUID(), input, this.deps.clock.now());
    const serialNumber = await repos.patrols.createPatrol(write);
    return { ...view, patrol: { ...view.patrol, serialNumber } };
  }

  /**
   * PUT and PATCH: fields left out are unchanged; nested segments with an id are updated, others
   * created. With a base revision (`pre.base`) the patrol's and its segments' fields are merged
   * against what changed since (domain/merge); every update writes its revision's history row.
   */
  async update(ctx: RequestContext, id: string, body: unknown, pre: WritePrecondition = {}): Promise<PatrolView> {
    const { ifMatch } = pre;
    const principal = requirePermission(ctx, 'change_patrol');
    const { tenantId } = principal;
    const input = readPatrolBody(body);
    if (input.id && input.id !== id.toLowerCase()) throw InputError.field('id', 'mismatch', 'The body id differs from the URL.', ['Leave id out, or send the same one.']);
    return this.deps.store.transaction(async (repos) => {
      await repos.catalog.lock(tenantId, LOCK);
      const now = this.deps.clock.now();
      const current = await this.findPatrol(repos, tenantId, id);
      const segments = await repos.patrols.segmentsOf(tenantId, [current.id]);
      // Checked under the patrols lock: of two writers holding one tag, exactly one wins.
      if (ifMatch && !ifMatch(patrolEtag(current, segments))) throw new PreconditionFailedError('The patrol has changed since that ETag (If-Match).');
      const planned = await planPatrolWrite(repos, current, segments, input, input.segments ?? [], pre, now);
      if (planned.plan.result.status === 'replayed') {
        await replayedOutcome(repos, { kind: 'patrol', tenantId, id: current.id, revision: current.revision, outcome: { kind: 'patrol', id: current.id } });
        return this.view(repos, tenantId, current.id);
      }
      const patrol: Patrol = { ...planned.patrol, revision: current.revision + 1, updatedAt: now };
      await repos.patrols.updatePatrol(patrol);
      if (patrol.state !== current.state) await this.record(repos, ctx, patrol, 'update_patrol_state', `Patrol state changed to ${patrol.state}`, now);
      const endCleared = await this.writePlanned(repos, patrol, segments, planned.segments);
      for (const note of input.notes ?? []) if (!note.id) await this.insertNote(repos, ctx, patrol, note.text, now);
      await this.refresh(repos, ctx, patrol, now, { endCleared });
      await this.finish(repos, ctx, principal, patrol, planned, { kind: 'patrol', id: patrol.id }, now);
      return this.view(repos, tenantId, patrol.id);
    });
  }

  /**
   * DELETE (er-client `delete_patrol`; the original answers it): the patrol with its segments,
   * notes, files and updates, in one transaction, leaving a tombstone on the sync feed. With a
   * base revision, a patrol that changed since it is refused (`changed_since_base`), as events.
   */
  async delete(ctx: RequestContext, id: string, pre: WritePrecondition = {}): Promise<void> {
    const { tenantId } = requirePermission(ctx, 'delete_patrol');
    await this.deps.store.transaction(async (repos) => {
      await repos.catalog.lock(tenantId, LOCK);
      const current = await this.findPatrol(repos, tenantId, id);
      if (pre.ifMatch && !pre.ifMatch(patrolEtag(current, await repos.patrols.segmentsOf(tenantId, [current.id])))) {
        throw new PreconditionFailedError('The patrol has changed since that ETag (If-Match).');
      }
      if (pre.base && current.revision > pre.base.revision) {
        throw new ChangedSinceBaseError(`The patrol changed since revision ${pre.base.revision} (it is at ${current.revision}); read it again before deleting it.`, current.revision);
      }
      await repos.patrols.deletePatrol(tenantId, current.id);
      await repos.revisions.deleteOf(tenantId, 'patrol', current.id);
      await repos.conflicts.deleteOf(tenantId, 'patrol', current.id);
    });
  }

  async listSegments(ctx: RequestContext, page: { offset: number; limit: number }) {
    const { tenantId } = requirePermission(ctx, 'view_patrol');
    const { total, segments } = await this.deps.store.repos.patrols.listSegments(tenantId, page);
    return { total, views: await loadSegmentViews(this.deps.store.repos, tenantId, segments) };
  }

  async getSegment(ctx: RequestContext, id: string): Promise<SegmentView> {
    const { tenantId } = requirePermission(ctx, 'view_patrol');
    const segment = await this.findSegment(this.deps.store.repos, tenantId, id);
    return (await loadSegmentViews(this.deps.store.repos, tenantId, [segment]))[0]!;
  }

  /** A standalone segment names its patrol; an unknown patrol is 400 (a bad reference, not a bad URL). */
  async createSegment(ctx: RequestContext, body: unknown): Promise<SegmentView> {
    const principal = requirePermission(ctx, 'change_patrol');
    const { tenantId } = principal;
    const input = readSegmentBody(body, 'create');
    return this.deps.store.transaction(async (repos) => {
      await repos.catalog.lock(tenantId, LOCK);
      const now = this.deps.clock.now();
      const found = await repos.patrols.findPatrol(tenantId, input.patrol!);
      if (!found) throw InputError.field('patrol', 'unknown_patrol', 'No such patrol.', ['Create the patrol first, or check its id.']);
      const before = flattenPatrol(found, await repos.patrols.segmentsOf(tenantId, [found.id]));
      const patrol = { ...found, revision: found.revision + 1 };
      const [segment] = await this.writeSegments(repos, tenantId, patrol, [input], now, true);
      await this.refresh(repos, ctx, patrol, now, { endCleared: false });
      const plan: MergePlan = { base: null, policy: 'hold', result: { status: 'applied', apply: new Map(), merged: [], conflicts: [], base: new Map() } };
      await this.finish(repos, ctx, principal, patrol, { plan, patrol, segments: [], before }, { kind: 'segment', id: segment!.id }, now);
      return (await loadSegmentViews(repos, tenantId, [segment!]))[0]!;
    });
  }

  /** PUT and PATCH of one segment; with a base revision its fields are merged as the patrol's are. */
  async updateSegment(ctx: RequestContext, id: string, body: unknown, pre: WritePrecondition = {}): Promise<SegmentView> {
    const principal = requirePermission(ctx, 'change_patrol');
    const { tenantId } = principal;
    const input = readSegmentBody(body, 'update');
    return this.deps.store.transaction(async (repos) => {
      await repos.catalog.lock(tenantId, LOCK);
      const now = this.deps.clock.now();
      const current = await this.findSegment(repos, tenantId, id);
      if (input.patrol && input.patrol !== current.patrolId) throw InputError.field('patrol', 'not_allowed', 'A segment cannot move to another patrol.', ['Create a new segment instead.']);
      const found = (await repos.patrols.findPatrol(tenantId, current.patrolId))!;
      const segments = await repos.patrols.segmentsOf(tenantId, [found.id]);
      const planned = await planPatrolWrite(repos, found, segments, {}, [{ ...input, id: current.id }], pre, now, { nested: false });
      if (planned.plan.result.status === 'replayed') {
        await replayedOutcome(repos, { kind: 'patrol', tenantId, id: found.id, revision: found.revision, outcome: { kind: 'segment', id: current.id } });
        return (await loadSegmentViews(repos, tenantId, [current]))[0]!;
      }
      const patrol = { ...found, revision: found.revision + 1 };
      const endCleared = await this.writePlanned(repos, patrol, segments, planned.segments);
      await this.refresh(repos, ctx, patrol, now, { endCleared });
      await this.finish(repos, ctx, principal, patrol, planned, { kind: 'segment', id: current.id }, now);
      return (await loadSegmentViews(repos, tenantId, [(await repos.patrols.findSegment(tenantId, current.id))!]))[0]!;
    });
  }

  /**
   * Writes one merge field as a settled revision (a conflict resolved with the value that does
   * not stand; domain/merge/conflicts.ts), while the field still holds `change.standing`.
   */
  async writeSettled(ctx: RequestContext, id: string, change: SettledChange): Promise<number> {
    const principal = requirePermission(ctx, 'change_patrol');
    const { tenantId } = principal;
    return this.deps.store.transaction(async (repos) => {
      await repos.catalog.lock(tenantId, LOCK);
      const now = this.deps.clock.now();
      const current = await this.findPatrol(repos, tenantId, id);
      const segments = await repos.patrols.segmentsOf(tenantId, [current.id]);
      const before = flattenPatrol(current, segments);
      const held = before.get(change.path) ?? null;
      if (!sameValue(held, change.standing)) throw new ConflictStaleError(`${change.path} changed after the conflict; it is now ${JSON.stringify(held)}.`, held);
      const values = new Map([[change.path, change.value]]);
      const patrol: Patrol = { ...applyPatrolFields(current, values), revision: current.revision + 1, updatedAt: now };
      await repos.patrols.updatePatrol(patrol);
      if (patrol.state !== current.state) await this.record(repos, ctx, patrol, 'update_patrol_state', `Patrol state changed to ${patrol.state}`, now);
      const parsed = parseFieldPath('patrol', change.path);
      let endCleared = false;
      if (parsed?.part === 'segment') {
        const segment = segments.find((one) => one.id === parsed.segmentId)!;
        const next = { ...applySegmentFields(segment, values), revision: patrol.revision, updatedAt: now };
        if (invalidSegmentRange(next)) throw InputError.field(change.path, 'invalid_range', 'That value would end the segment before it starts.', ['Correct the other time first.']);
        await repos.patrols.updateSegment(next);
        endCleared = segment.endTime !== null && next.endTime === null;
      }
      await this.refresh(repos, ctx, patrol, now, { endCleared });
      const after = flattenPatrol((await repos.patrols.findPatrol(tenantId, patrol.id))!, await repos.patrols.segmentsOf(tenantId, [patrol.id]));
      await recordRevision(repos, principal, { kind: 'patrol', tenantId, id: patrol.id, revision: patrol.revision, base: null, before, after, action: 'settled', at: now });
      await this.record(repos, ctx, patrol, 'update_patrol', change.line, now);
      await change.inTransaction(repos, patrol.revision);
      return patrol.revision;
    });
  }

  /** Writes planned segments at the patrol's new revision; true when an end time was cleared. */
  private async writePlanned(repos: Repositories, patrol: Patrol, before: readonly PatrolSegment[], writes: readonly SegmentWrite[]): Promise<boolean> {
    let endCleared = false;
    for (const { segment, created } of writes) {
      const next = { ...segment, revision: patrol.revision };
      if (created) {
        await repos.patrols.insertSegment(next);
        continue;
      }
      await repos.patrols.updateSegment(next);
      const original = before.find((one) => one.id === segment.id);
      if (original && original.endTime !== null && next.endTime === null) endCleared = true;
    }
    return endCleared;
  }

  /** The revision's history and conflict rows, the outcome, and the merge's lines in the patrol's updates. */
  private async finish(repos: Repositories, ctx: RequestContext, principal: Principal, patrol: Patrol, planned: PatrolWritePlan, outcome: { kind: 'patrol' | 'segment'; id: string }, now: number): Promise<void> {
    const after = await repos.patrols.findPatrol(patrol.tenantId, patrol.id);
    const segments = await repos.patrols.segmentsOf(patrol.tenantId, [patrol.id]);
    const { lines } = await finishMerge(repos, principal, {
      kind: 'patrol', tenantId: patrol.tenantId, id: patrol.id, outcome, revision: patrol.revision, plan: planned.plan, before: planned.before, after: flattenPatrol(after!, segments), at: now,
    });
    for (const line of lines) await this.record(repos, ctx, patrol, 'update_patrol', line, now);
  }

  /** Creates or updates segments; returns whether an end time was cleared (or, with `returnSegments`, the segments). */
  private async writeSegments(repos: Repositories, tenantId: string, patrol: Patrol, inputs: SegmentInput[], now: number): Promise<boolean>;
  private async writeSegments(repos: Repositories, tenantId: string, patrol: Patrol, inputs: SegmentInput[], now: number, returnSegments: true): Promise<PatrolSegment[]>;
  private async writeSegments(repos: Repositories, tenantId: string, patrol: Patrol, inputs: SegmentInput[], now: number, returnSegments = false): Promise<boolean | PatrolSegment[]> {
    let endCleared = false;
    const written: PatrolSegment[] = [];
    for (const [index, input] of inputs.entries()) {
      const field = returnSegments ? '' : `patrol_segments[${index}]`;
      const current = input.id ? await repos.patrols.findSegment(tenantId, input.id) : null;
      if (current && current.patrolId !== patrol.id) throw InputError.field(`${field || 'id'}`, 'other_patrol', 'That segment belongs to another patrol.', ['Leave the id out to create a new segment.']);
      if (current && returnSegments) throw new ConflictError('A segment with this id already exists.');
      const { segment: applied } = await applySegmentInput(repos, tenantId, patrol.id, current, input, now, field);
      const segment = { ...applied, revision: patrol.revision };
      if (current) {
        await repos.patrols.updateSegment(segment);
        if (current.endTime !== null && segment.endTime === null) endCleared = true;
      } else {
        await repos.patrols.insertSegment(segment);
      }
      written.push(segment);
    }
    return returnSegments ? written : endCleared;
  }

  /**
   * Recomputes the stored window from every segment and applies the automatic state rules; the
   * patrol's row takes `patrol.revision` (the write's one bump, decided by the caller).
   */
  private async refresh(repos: Repositories, ctx: RequestContext | null, patrol: Patrol, now: number, change: { endCleared: boolean }): Promise<Patrol> {
    const current = (await repos.patrols.findPatrol(patrol.tenantId, patrol.id))!;
    const window = patrolWindow(await repos.patrols.segmentsOf(patrol.tenantId, [patrol.id]));
    const state: PatrolState = automaticState(current, window, now, change.endCleared);
    const next = { ...current, window, state, revision: patrol.revision, updatedAt: now };
    await repos.patrols.updatePatrol(next);
    if (state !== current.state) await this.record(repos, ctx, next, 'update_patrol_state', `Patrol state changed to ${state} automatically`, now);
    return next;
  }

  private async insertNote(repos: Repositories, ctx: RequestContext, patrol: Patrol, text: string, now: number, id?: string): Promise<void> {
    const user = ctx.principal ? actingUser(ctx.principal) : null;
    await repos.patrols.insertNote({ id: id ?? randomUUID(), tenantId: patrol.tenantId, patrolId: patrol.id, text, createdByUserId: user?.id ?? null, createdByUsername: user?.username ?? null, createdAt: now, updatedAt: now });
  }

  /** Records a change in the patrol's updates: by the caller, or by the system when ctx is null. */
  async record(repos: Repositories, ctx: RequestContext | null, patrol: Patrol, type: string, message: string, now: number): Promise<void> {
    await repos.patrols.insertUpdate(patrolUpdate(ctx, patrol, type, message, now));
  }

  private async view(repos: Repositories, tenantId: string, id: string): Promise<PatrolView> {
    return (await loadPatrolViews(repos, tenantId, [(await repos.patrols.findPatrol(tenantId, id))!]))[0]!;
  }

  async findPatrol(repos: Repositories, tenantId: string, id: string): Promise<Patrol> {
    const patrol = isUuid(id) ? await repos.patrols.findPatrol(tenantId, id.toLowerCase()) : null;
    if (!patrol) throw new NotFoundError('No such patrol.');
    return patrol;
  }

  private async findSegment(repos: Repositories, tenantId: string, id: string): Promise<PatrolSegment> {
    const segment = isUuid(id) ? await repos.patrols.findSegment(tenantId, id.toLowerCase()) : null;
    if (!segment) throw new NotFoundError('No such patrol segment.');
    return segment;
  }
}

