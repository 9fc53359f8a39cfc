/**
 * One batched-push entry to the service its single route calls (issue 26 §4): the same checks,
 * the same transaction, the same answer. Knows no HTTP; the handler presents `value` in the
 * shape the single route answers.
 */
import type { PushEntry, PushOp } from '../../../protocol/push.js';
import type { WritePrecondition } from '../client-input.js';
import type { RequestContext } from '../context.js';
import { DomainError, InputError } from '../errors.js';
import type { EventFileRecord, EventNote, EventView } from '../events/model.js';
import type { EventService } from '../events/service.js';
import type { PatrolFileService } from '../patrols/files.js';
import type { PatrolFile, PatrolNote, PatrolView, SegmentView } from '../patrols/model.js';
import type { PatrolNoteService } from '../patrols/notes.js';
import type { PatrolService } from '../patrols/service.js';
import type { RecordKind } from '../../../protocol/sync.js';
import type { ConflictRow } from '../merge/ports.js';

/** Settles one conflict (domain/merge/conflicts.ts, `POST /conflicts/<id>/resolve`). */
export interface ConflictResolver {
  resolve(ctx: RequestContext, id: string, body: unknown): Promise<ConflictRow>;
}

export interface PushServices {
  events: EventService;
  patrols: PatrolService;
  patrolNotes: PatrolNoteService;
  patrolFiles: PatrolFileService;
  conflicts: ConflictResolver | null;
}

/** What an entry wrote, for the handler to present as the single route would. */
export type PushValue =
  | { type: 'event'; view: EventView }
  | { type: 'patrol'; view: PatrolView }
  | { type: 'segment'; view: SegmentView }
  | { type: 'event_note'; note: EventNote }
  | { type: 'patrol_note'; note: PatrolNote }
  | { type: 'event_file'; file: EventFileRecord }
  | { type: 'patrol_file'; file: PatrolFile }
  | { type: 'conflict'; row: ConflictRow }
  | { type: 'none' };

export interface Dispatched {
  value: PushValue;
  kind?: 'event' | 'patrol' | 'segment' | 'conflict';
  id?: string;
  revision?: number;
  sha256?: string;
}

/** An op this server cannot carry out (yet): the entry is rejected with 501, never run. */
export class NotSupportedError extends DomainError {
  readonly code = 'not_supported';
  readonly status = 501;
}

/** The single route's success status per op. */
export const SUCCESS_STATUS: Record<PushOp, number> = {
  'event.create': 201, 'event.update': 200, 'event.delete': 204, 'event.note': 201, 'event.file': 201,
  'patrol.create': 201, 'patrol.update': 200, 'patrol.note': 201, 'patrol.file': 201, 'segment.update': 200, 'conflict.resolve': 200,
};

/** The kind of record an op marks (what its idempotency key is stored with). */
export function recordKindOf(op: PushOp): RecordKind {
  return op.startsWith('patrol.') || op.startsWith('segment.') ? 'patrol' : 'event';
}

export async function dispatch(services: PushServices, ctx: RequestContext, entry: PushEntry, pre: WritePrecondition): Promise<Dispatched> {
  const { events, patrols } = services;
  const target = () => required(entry.id, 'id');
  switch (entry.op) {
    case 'event.create':
      return eventResult(await events.create(ctx, entry.body));
    case 'event.update':
      return eventResult(await events.update(ctx, target(), entry.body, pre));
    case 'event.delete':
      await events.delete(ctx, target(), pre);
      return { value: { type: 'none' }, kind: 'event', id: target().toLowerCase() };
    case 'event.note': {
      const note = await events.notes.create(ctx, target(), entry.body);
      return { value: { type: 'event_note', note }, kind: 'event', id: note.eventId };
    }
    case 'event.file': {
      const file = await events.files.attachUpload(ctx, target(), attachBody(entry.body));
      return { value: { type: 'event_file', file }, kind: 'event', id: target().toLowerCase(), sha256: file.sha256 };
    }
    case 'patrol.create':
      return patrolResult(await patrols.create(ctx, entry.body));
    case 'patrol.update':
      return patrolResult(await patrols.update(ctx, target(), entry.body, pre));
    case 'patrol.note': {
      const note = await services.patrolNotes.create(ctx, target(), entry.body);
      return { value: { type: 'patrol_note', note }, kind: 'patrol', id: note.patrolId };
    }
    case 'patrol.file': {
      const file = await services.patrolFiles.attachUpload(ctx, target(), attachBody(entry.body));
      return { value: { type: 'patrol_file', file }, kind: 'patrol', id: target().toLowerCase(), sha256: file.sha256 };
    }
    case 'segment.update': {
      const view = await patrols.updateSegment(ctx, required(entry.segment, 'segment'), entry.body, pre);
      return { value: { type: 'segment', view }, kind: 'segment', id: view.segment.id, revision: revisionOf(view.segment) };
    }
    case 'conflict.resolve': {
      if (!services.conflicts) throw new NotSupportedError('Conflict resolution is not available on this server yet.');
      const row = await services.conflicts.resolve(ctx, target(), entry.body);
      return { value: { type: 'conflict', row }, kind: 'conflict', id: row.id };
    }
  }
}

function eventResult(view: EventView): Dispatched {
  return { value: { type: 'event', view }, kind: 'event', id: view.event.id, revision: view.event.revision };
}

function patrolResult(view: PatrolView): Dispatched {
  return { value: { type: 'patrol', view }, kind: 'patrol', id: view.patrol.id, revision: revisionOf(view.patrol) };
}

function revisionOf(record: object): number | undefined {
  const revision = (record as { revision?: unknown }).revision;
  return typeof revision === 'number' ? revision : undefined;
}

function required(value: string | undefined, field: string): string {
  if (typeof value !== 'string' || value === '') throw InputError.field(field, 'required', `This entry needs \`${field}\`.`, ['Name the record the entry changes.']);
  return value;
}

/** `{id, upload, comment}`: what attachUpload takes (the schema checked the types). */
function attachBody(body: unknown): { id: string; upload: string; comment?: string } {
  const value = (body ?? {}) as { id?: unknown; upload?: unknown; comment?: unknown };
  if (typeof value.id !== 'string') throw InputError.field('id', 'required', 'A file entry needs the new file\'s `id`.');
  if (typeof value.upload !== 'string') throw InputError.field('upload', 'required', 'A file entry needs the finished upload\'s `upload` id.', ['Upload the file first (POST /api/fieldops/v1/uploads).']);
  return { id: value.id, upload: value.upload, ...(typeof value.comment === 'string' ? { comment: value.comment } : {}) };
}
