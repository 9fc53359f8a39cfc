import type { Services } from '../../app.js';
import { eventHandlers } from '../handlers/events.js';
import { eventPartHandlers } from '../handlers/events-notes.js';
import { type Route, json, keyed } from './types.js';
import { eventSchemas as s } from '../schemas/events.js';
import { eventBatchHandlers } from '../handlers/events-batch.js';
import { eventRelationshipHandlers } from '../handlers/event-relationships.js';
import { eventExportHandlers } from '../handlers/events-export.js';
import type { JSONSchema, RouteSchema } from '../schemas/types.js';
import { MAX_PUSH_ENTRIES } from '../../../protocol/push.js';

/**
 * POST events takes one event or an array of them (the original accepts both): the array is
 * created all or nothing (handlers/events-batch.ts), at most MAX_PUSH_ENTRIES at once.
 */
function oneOrMany(create: RouteSchema): RouteSchema {
  const item = create.body!.schema;
  const one = create.responses[201]!;
  return {
    ...create,
    description: 'One event, or an array of events created all or none (201 with the array, in order). Array items that are not valid are a 400 naming each by index; a client id that exists already is a 409 for the whole array.',
    body: { kind: 'json', schema: { type: ['object', 'array'], items: item, minItems: 1, maxItems: MAX_PUSH_ENTRIES, if: { type: 'object' }, then: item, 'x-error-codes': { minItems: 'empty_batch', maxItems: 'batch_too_large' } } as JSONSchema },
    responses: { ...create.responses, 201: { ...one, json: { oneOf: [one.json!, { type: 'array', items: one.json! }] } } },
  };
}

/**
 * Events, their notes and files, and the events of a patrol segment. One event answers at the
 * original's path `activity/event/<id>` (CONTRACT §11) and at `activity/events/<id>`; the
 * event types' and categories' literal paths under `activity/events/` come earlier in the table.
 */
export function eventRoutes(services: Services): Route[] {
  const h = eventHandlers({ events: services.events, trustProxy: services.trustProxy });
  const batch = eventBatchHandlers({ events: services.events, trustProxy: services.trustProxy });
  const create = (ctx: Parameters<typeof h.create>[0]) => (Array.isArray(ctx.state.body) ? batch.createMany(ctx) : h.create(ctx));
  const p = eventPartHandlers({ events: services.events, files: services.files, uploadSlots: services.uploadSlots, maxFieldBytes: services.bodyLimits.formBytes, trustProxy: services.trustProxy });
  const list = '/api/v1.0/activity/events';
  const one = ['/api/v1.0/activity/event/:id', `${list}/:id`];
  const event = '/api/v1.0/activity/event/:id';
  const segment = '/api/v1.0/activity/patrols/segments/:id/events';
  const rel = eventRelationshipHandlers({ events: services.events, trustProxy: services.trustProxy });
  const exp = eventExportHandlers({ exports: services.eventExports });
  return [
    // Literal paths under activity/events/ before `activity/events/:id`.
    { name: 'events.geojson', method: 'GET', paths: [`${list}/geojson`], authenticate: true, schema: s.geojson, handler: h.geojson },
    { name: 'events.count', method: 'GET', paths: [`${list}/count`], authenticate: true, schema: s.count, handler: h.count },
    { name: 'exports.events', method: 'GET', paths: [`${list}/export`], authenticate: true, schema: s.export, handler: exp.export },
    {
      name: 'events.relationships.add', method: 'POST', paths: [`${event}/relationships`], authenticate: true, body: json, schema: s.addRelationship, handler: rel.add,
      // A replay whose answer was lost is answered the incident as it is now (201).
      idempotent: { recordKind: 'event', readBack: 'events.get', status: 201 },
    },
    { name: 'events.relationship.delete', method: 'DELETE', paths: [`${event}/relationship/:type/:to`], authenticate: true, schema: s.removeRelationship, handler: rel.remove, idempotent: keyed.remove('event') },
    { name: 'segments.events', method: 'GET', paths: [segment], authenticate: true, schema: s.segmentEvents, handler: h.segmentEvents },
    { name: 'segments.events.create', method: 'POST', paths: [segment], authenticate: true, body: json, schema: s.createSegmentEvent, handler: h.createSegmentEvent, idempotent: keyed.create('event', 'events.get', 'id', true) },
    { name: 'events.list', method: 'GET', paths: [list], authenticate: true, schema: s.list, handler: h.list },
    { name: 'events.create', method: 'POST', paths: [list], authenticate: true, body: json, schema: oneOrMany(s.create), handler: create, idempotent: keyed.create('event', 'events.get', 'id', true) },
    { name: 'events.get', method: 'GET', paths: one, authenticate: true, schema: s.get, handler: h.get },
    { name: 'events.patch', method: 'PATCH', paths: one, authenticate: true, body: json, schema: s.patch, handler: h.update, idempotent: keyed.update('event', 'events.get') },
    { name: 'events.delete', method: 'DELETE', paths: one, authenticate: true, schema: s.remove, handler: h.remove, idempotent: keyed.remove('event') },
    { name: 'events.notes.list', method: 'GET', paths: [`${event}/notes`], authenticate: true, schema: s.listNotes, handler: p.listNotes },
    { name: 'events.notes.create', method: 'POST', paths: [`${event}/notes`], authenticate: true, body: json, schema: s.createNote, handler: p.createNote, idempotent: keyed.create('event', 'events.note.get', 'noteId') },
    { name: 'events.note.get', method: 'GET', paths: [`${event}/note/:noteId`], authenticate: true, schema: s.getNote, handler: p.getNote },
    { name: 'events.note.patch', method: 'PATCH', paths: [`${event}/note/:noteId`], authenticate: true, body: json, schema: s.patchNote, handler: p.updateNote, idempotent: keyed.update('event', 'events.note.get') },
    { name: 'events.note.delete', method: 'DELETE', paths: [`${event}/note/:noteId`], authenticate: true, schema: s.deleteNote, handler: p.deleteNote, idempotent: keyed.remove('event') },
    { name: 'events.files.list', method: 'GET', paths: [`${event}/files`], authenticate: true, schema: s.listFiles, handler: p.listFiles },
    { name: 'events.files.upload', method: 'POST', paths: [`${event}/files`], authenticate: true, schema: s.upload, handler: p.upload, idempotent: keyed.create('event', 'events.file.get', 'fileId', false, true) },
    { name: 'events.file.get', method: 'GET', paths: [`${event}/file/:fileId`], authenticate: true, schema: s.getFile, handler: p.getFile },
    { name: 'events.file.delete', method: 'DELETE', paths: [`${event}/file/:fileId`], authenticate: true, schema: s.deleteFile, handler: p.deleteFile, idempotent: keyed.remove('event') },
    { name: 'events.file', method: 'GET', paths: [`${event}/file/:fileId/content`, `${list}/:id/files/:fileId/content`], authenticate: true, schema: s.file, handler: p.content },
  ];
}
