import type { Clock } from '../../db/time.js';
import { type RequestContext, requirePermission } from '../context.js';
import { NotFoundError } from '../errors.js';
import { isUuid } from '../ids.js';
import type { Repositories, Store } from '../ports.js';
import { readNoteBody } from './input.js';
import type { EventNote } from './model.js';
import type { EventService } from './service.js';

/**
 * Notes of an event (`activity/event/<id>/notes`, `/note/<note_id>`): reading needs view_event,
 * writing change_event. Each write records a history entry and moves the event's ETag, in the
 * same transaction as the note.
 */
export class EventNoteService {
  constructor(private readonly deps: { store: Store; clock: Clock; events: EventService }) {}

  async list(ctx: RequestContext, eventId: string): Promise<EventNote[]> {
    const { tenantId } = requirePermission(ctx, 'view_event');
    const event = await this.deps.events.find(this.deps.store.repos, tenantId, eventId);
    return this.deps.store.repos.eventNotes.notesOf(tenantId, [event.id]);
  }

  async get(ctx: RequestContext, eventId: string, noteId: string): Promise<EventNote> {
    const { tenantId } = requirePermission(ctx, 'view_event');
    return this.find(this.deps.store.repos, tenantId, eventId, noteId);
  }

  async create(ctx: RequestContext, eventId: string, body: unknown): Promise<EventNote> {
    const principal = requirePermission(ctx, 'change_event');
    await this.deps.events.find(this.deps.store.repos, principal.tenantId, eventId);
    const { text } = readNoteBody(body);
    return this.deps.store.transaction(async (repos) => {
      const event = await this.deps.events.find(repos, principal.tenantId, eventId);
      const id = await this.deps.events.addNote(repos, principal, event.id, text, this.deps.clock.now());
      return this.find(repos, principal.tenantId, event.id, id);
    });
  }

  async update(ctx: RequestContext, eventId: string, noteId: string, body: unknown): Promise<EventNote> {
    const principal = requirePermission(ctx, 'change_event');
    await this.find(this.deps.store.repos, principal.tenantId, eventId, noteId);
    const { text } = readNoteBody(body);
    return this.deps.store.transaction(async (repos) => {
      const current = await this.find(repos, principal.tenantId, eventId, noteId);
      if (current.text === text) return current;
      const now = this.deps.clock.now();
      const next = { ...current, text, updatedAt: now };
      await repos.eventNotes.updateNote(next);
      await this.deps.events.record(repos, principal, current.eventId, 'update_note', 'Note Updated', now);
      await repos.events.touch(principal.tenantId, current.eventId, now);
      return next;
    });
  }

  async delete(ctx: RequestContext, eventId: string, noteId: string): Promise<void> {
    const principal = requirePermission(ctx, 'change_event');
    await this.deps.store.transaction(async (repos) => {
      const current = await this.find(repos, principal.tenantId, eventId, noteId);
      const now = this.deps.clock.now();
      await repos.eventNotes.deleteNote(principal.tenantId, current.eventId, current.id);
      await this.deps.events.record(repos, principal, current.eventId, 'delete_note', 'Note Deleted', now);
      await repos.events.touch(principal.tenantId, current.eventId, now);
    });
  }

  private async find(repos: Repositories, tenantId: string, eventId: string, noteId: string): Promise<EventNote> {
    const event = await this.deps.events.find(repos, tenantId, eventId);
    const note = isUuid(noteId) ? (await repos.eventNotes.notesOf(tenantId, [event.id])).find((candidate) => candidate.id === noteId.toLowerCase()) : undefined;
    if (!note) throw new NotFoundError('No such note.');
    return note;
  }
}
