import { randomUUID } from 'node:crypto';
import type { Clock } from '../../db/time.js';
import { type RequestContext, actingUser, requirePermission } from '../context.js';
import { ConflictError, NotFoundError } from '../errors.js';
import { isUuid } from '../ids.js';
import type { Store } from '../ports.js';
import { readNewNoteBody, readNoteBody } from './input.js';
import type { PatrolNote } from './model.js';
import type { PatrolService } from './service.js';

/** Notes of a patrol (`/patrols/<id>/notes`): the patrol is implied by the URL. */
export class PatrolNoteService {
  constructor(private readonly deps: { store: Store; clock: Clock; patrols: PatrolService }) {}

  async list(ctx: RequestContext, patrolId: string): Promise<PatrolNote[]> {
    const { tenantId } = requirePermission(ctx, 'view_patrol');
    const patrol = await this.deps.patrols.findPatrol(this.deps.store.repos, tenantId, patrolId);
    return this.deps.store.repos.patrols.notesOf(tenantId, [patrol.id]);
  }

  async get(ctx: RequestContext, patrolId: string, noteId: string): Promise<PatrolNote> {
    const notes = await this.list(ctx, patrolId);
    const note = isUuid(noteId) ? notes.find((candidate) => candidate.id === noteId.toLowerCase()) : undefined;
    if (!note) throw new NotFoundError('No such note.');
    return note;
  }

  async create(ctx: RequestContext, patrolId: string, body: unknown): Promise<PatrolNote> {
    const { tenantId } = requirePermission(ctx, 'change_patrol');
    const { text, id } = readNewNoteBody(body);
    return this.deps.store.transaction(async (repos) => {
      const patrol = await this.deps.patrols.findPatrol(repos, tenantId, patrolId);
      // A client-supplied id that exists already is 409 and changes nothing (offline retries).
      if (id && (await repos.patrols.notesOf(tenantId, [patrol.id])).some((note) => note.id === id)) throw new ConflictError('A note with this id already exists.');
      const user = actingUser(ctx.principal!);
      const now = this.deps.clock.now();
      const note: PatrolNote = { id: id ?? randomUUID(), tenantId, patrolId: patrol.id, text: text!, createdByUserId: user?.id ?? null, createdByUsername: user?.username ?? null, createdAt: now, updatedAt: now };
      await repos.patrols.insertNote(note);
      return note;
    });
  }

  /** Read and written in one transaction, so two concurrent edits cannot interleave. */
  async update(ctx: RequestContext, patrolId: string, noteId: string, body: unknown, mode: 'replace' | 'patch'): Promise<PatrolNote> {
    const { tenantId } = requirePermission(ctx, 'change_patrol');
    const { text } = readNoteBody(body, mode === 'replace');
    return this.deps.store.transaction(async (repos) => {
      const patrol = await this.deps.patrols.findPatrol(repos, tenantId, patrolId);
      const current = isUuid(noteId) ? (await repos.patrols.notesOf(tenantId, [patrol.id])).find((note) => note.id === noteId.toLowerCase()) : undefined;
      if (!current) throw new NotFoundError('No such note.');
      if (text === undefined || text === current.text) return current;
      const next = { ...current, text, updatedAt: this.deps.clock.now() };
      await repos.patrols.updateNote(next);
      return next;
    });
  }
}
