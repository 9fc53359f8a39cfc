import type { EventNote, EventUpdate } from '../../domain/events/model.js';
import type { EventNoteRepository } from '../../domain/events/ports.js';
import type { Executor } from '../rows.js';
import { fromDbMillis } from '../time.js';
import type { ChangeSet } from '../../domain/sync/ports.js';

type Row = Record<string, unknown>;

const toNote = (row: Row): EventNote => ({
  id: row.id as string,
  tenantId: row.tenant_id as string,
  eventId: row.event_id as string,
  text: row.text as string,
  createdByUserId: (row.created_by_user_id as string | null) ?? null,
  createdAt: fromDbMillis(row.created_at),
  updatedAt: fromDbMillis(row.updated_at),
});

const toUpdate = (row: Row): EventUpdate => ({
  id: row.id as string,
  tenantId: row.tenant_id as string,
  eventId: row.event_id as string,
  type: row.type as string,
  message: row.message as string,
  userId: (row.user_id as string | null) ?? null,
  time: fromDbMillis(row.time),
});

/** Notes and history of events; every read is scoped by tenant; every write marks its event on the sync feed. */
export class KnexEventNoteRepository implements EventNoteRepository {
  constructor(
    private readonly db: Executor,
    private readonly changes: ChangeSet,
  ) {}

  async notesOf(tenantId: string, eventIds: readonly string[]): Promise<EventNote[]> {
    if (eventIds.length === 0) return [];
    const rows = await this.db('event_notes').where({ tenant_id: tenantId }).whereIn('event_id', [...eventIds]).orderBy([{ column: 'created_at' }, { column: 'id' }]);
    return rows.map(toNote);
  }

  async insertNote(note: EventNote): Promise<void> {
    this.changes.mark('event', note.tenantId, note.eventId);
    await this.db('event_notes').insert({
      id: note.id, tenant_id: note.tenantId, event_id: note.eventId, text: note.text,
      created_by_user_id: note.createdByUserId, created_at: note.createdAt, updated_at: note.updatedAt,
    });
  }

  async updateNote(note: EventNote): Promise<void> {
    this.changes.mark('event', note.tenantId, note.eventId);
    await this.db('event_notes').where({ tenant_id: note.tenantId, id: note.id }).update({ text: note.text, updated_at: note.updatedAt });
  }

  async deleteNote(tenantId: string, eventId: string, noteId: string): Promise<boolean> {
    this.changes.mark('event', tenantId, eventId);
    return Number(await this.db('event_notes').where({ tenant_id: tenantId, event_id: eventId, id: noteId }).delete()) === 1;
  }

  /** Newest first (as the original serves `updates`). */
  async updatesOf(tenantId: string, eventIds: readonly string[]): Promise<EventUpdate[]> {
    if (eventIds.length === 0) return [];
    const rows = await this.db('event_updates').where({ tenant_id: tenantId }).whereIn('event_id', [...eventIds]).orderBy([{ column: 'time', order: 'desc' }, { column: 'id', order: 'desc' }]);
    return rows.map(toUpdate);
  }

  async insertUpdate(update: EventUpdate): Promise<void> {
    this.changes.mark('event', update.tenantId, update.eventId);
    await this.db('event_updates').insert({
      id: update.id, tenant_id: update.tenantId, event_id: update.eventId, type: update.type,
      message: update.message, user_id: update.userId, time: update.time,
    });
  }
}
