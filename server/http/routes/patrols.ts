import type { Services } from '../../app.js';
import { patrolHandlers } from '../handlers/patrols.js';
import { patrolFileHandlers } from '../handlers/patrol-files.js';
import { type Route, json, keyed } from './types.js';
import { patrolFileSchemas } from '../schemas/events.js';
import { patrolSchemas } from '../schemas/patrols.js';

/**
 * Patrols, segments and notes. `/patrols/segments...` and `/patrols/types...` come before
 * `/patrols/:id` in the table (the catalog routes are registered earlier).
 */
export function patrolRoutes(services: Services): Route[] {
  const h = patrolHandlers({ patrols: services.patrols, notes: services.patrolNotes, trustProxy: services.trustProxy });
  const f = patrolFileHandlers({ service: services.patrolFiles, files: services.files, uploadSlots: services.uploadSlots, bodyLimits: services.bodyLimits, trustProxy: services.trustProxy });
  const base = '/api/v1.0/activity/patrols';
  return [
    { name: 'segments.list', method: 'GET', paths: [`${base}/segments`], authenticate: true, schema: patrolSchemas.listSegments, handler: h.listSegments },
    { name: 'segments.create', method: 'POST', paths: [`${base}/segments`], authenticate: true, body: json, schema: patrolSchemas.createSegment, handler: h.createSegment, idempotent: keyed.create('patrol', 'segments.get', 'id') },
    { name: 'segments.get', method: 'GET', paths: [`${base}/segments/:id`], authenticate: true, schema: patrolSchemas.getSegment, handler: h.getSegment },
    { name: 'segments.replace', method: 'PUT', paths: [`${base}/segments/:id`], authenticate: true, body: json, schema: patrolSchemas.replaceSegment, handler: h.updateSegment, idempotent: keyed.update('patrol', 'segments.get') },
    { name: 'segments.patch', method: 'PATCH', paths: [`${base}/segments/:id`], authenticate: true, body: json, schema: patrolSchemas.patchSegment, handler: h.updateSegment, idempotent: keyed.update('patrol', 'segments.get') },

    { name: 'patrols.list', method: 'GET', paths: [base], authenticate: true, schema: patrolSchemas.list, handler: h.list },
    { name: 'patrols.create', method: 'POST', paths: [base], authenticate: true, body: json, schema: patrolSchemas.create, handler: h.create, idempotent: keyed.create('patrol', 'patrols.get', 'id', true) },
    { name: 'patrols.get', method: 'GET', paths: [`${base}/:id`], authenticate: true, schema: patrolSchemas.get, handler: h.get },
    { name: 'patrols.replace', method: 'PUT', paths: [`${base}/:id`], authenticate: true, body: json, schema: patrolSchemas.replace, handler: h.update, idempotent: keyed.update('patrol', 'patrols.get') },
    { name: 'patrols.delete', method: 'DELETE', paths: [`${base}/:id`], authenticate: true, schema: patrolSchemas.remove, handler: h.remove, idempotent: keyed.remove('patrol') },
    { name: 'patrols.patch', method: 'PATCH', paths: [`${base}/:id`], authenticate: true, body: json, schema: patrolSchemas.patch, handler: h.update, idempotent: keyed.update('patrol', 'patrols.get') },

    { name: 'notes.list', method: 'GET', paths: [`${base}/:id/notes`], authenticate: true, schema: patrolSchemas.listNotes, handler: h.listNotes },
    { name: 'notes.create', method: 'POST', paths: [`${base}/:id/notes`], authenticate: true, body: json, schema: patrolSchemas.createNote, handler: h.createNote, idempotent: keyed.create('patrol', 'notes.get', 'noteId') },
    { name: 'notes.get', method: 'GET', paths: [`${base}/:id/notes/:noteId`], authenticate: true, schema: patrolSchemas.getNote, handler: h.getNote },
    { name: 'notes.replace', method: 'PUT', paths: [`${base}/:id/notes/:noteId`], authenticate: true, body: json, schema: patrolSchemas.replaceNote, handler: h.replaceNote, idempotent: keyed.update('patrol', 'notes.get') },
    { name: 'files.list', method: 'GET', paths: [`${base}/:id/files`], authenticate: true, schema: patrolFileSchemas.list, handler: f.list },
    { name: 'files.upload', method: 'POST', paths: [`${base}/:id/files`], authenticate: true, schema: patrolFileSchemas.upload, handler: f.upload, idempotent: keyed.create('patrol', 'files.get', 'fileId', false, true) },
    { name: 'files.get', method: 'GET', paths: [`${base}/:id/files/:fileId`], authenticate: true, schema: patrolFileSchemas.get, handler: f.get },
    { name: 'files.replace', method: 'PUT', paths: [`${base}/:id/files/:fileId`], authenticate: true, schema: patrolFileSchemas.replace, handler: f.update, idempotent: keyed.update('patrol', 'files.get', true) },
    { name: 'files.patch', method: 'PATCH', paths: [`${base}/:id/files/:fileId`], authenticate: true, schema: patrolFileSchemas.patch, handler: f.update, idempotent: keyed.update('patrol', 'files.get', true) },
    { name: 'files.content', method: 'GET', paths: [`${base}/:id/files/:fileId/content`], authenticate: true, schema: patrolFileSchemas.content, handler: f.content },
    { name: 'notes.patch', method: 'PATCH', paths: [`${base}/:id/notes/:noteId`], authenticate: true, body: json, schema: patrolSchemas.patchNote, handler: h.patchNote, idempotent: keyed.update('patrol', 'notes.get') },
  ];
}
