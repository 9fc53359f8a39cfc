import type { Services } from '../../app.js';
import { sourceHandlers } from '../handlers/sources.js';
import { subjectHandlers } from '../handlers/subjects.js';
import { sourceSchemas } from '../schemas/sources.js';
import { subjectSchemas } from '../schemas/subjects.js';
import { type Route, json, keyed } from './types.js';
import { unrenderable } from './keyed-unrenderable.js';

const V1 = '/api/v1.0';
/** The original's paths are all under /api/v1.0. */
const v1 = (path: string) => [`${V1}${path}`];

/**
 * Subjects, sources, source providers and assignments (issue 27), at the original's paths.
 * Tracks (`subjects/geojson`, `subjects/kml`, `subject/<id>/tracks`) come before this module in
 * the table, so `subjects/:id` never takes their literal segments. Every answer is `{data,
 * status}` in every profile (route names `subjects.*` are enveloped; the others are ruled in
 * presentation/rules-subjects.ts).
 *
 * Every write honours `Idempotency-Key` (docs/sync.md "Idempotent writes"). Subjects are on the
 * sync feed: their key is stored with the subject. The others are not (no record is stored with
 * the key): a committed write whose answer was lost is re-read when the route has a GET of one
 * record, else answered 202 (keyed-unrenderable.ts). A subject's id is always the server's (a
 * body `id` is ignored), and a source patched by manufacturer id may rename it: both re-read the
 * record stored with the key, never what the body or path names.
 */
export function subjectRoutes(services: Services): Route[] {
  const s = subjectHandlers(services.subjects, services.trustProxy);
  const src = sourceHandlers(services.sources, services.trustProxy);
  const subject = [`${V1}/subject/:id`, `${V1}/subjects/:id`];
  // `?provider=` picks among sources sharing the path's manufacturer id: part of a keyed request.
  const byProvider = ['provider'];
  return [
    { name: 'subjects.list', method: 'GET', paths: v1('/subjects'), authenticate: true, schema: subjectSchemas.list, handler: s.list },
    { name: 'subjects.create', method: 'POST', paths: v1('/subjects'), authenticate: true, body: json, schema: subjectSchemas.create, handler: s.create, idempotent: keyed.createWithServerId('subject', 'subjects.get', 'id') },
    { name: 'subjects.sources', method: 'GET', paths: v1('/subject/:id/sources'), authenticate: true, schema: sourceSchemas.ofSubject, handler: src.ofSubject },
    { name: 'subjects.subjectsources', method: 'GET', paths: v1('/subject/:id/subjectsources'), authenticate: true, schema: sourceSchemas.assignmentsOfSubject, handler: src.assignmentsOfSubject },
    { name: 'subjects.get', method: 'GET', paths: subject, authenticate: true, schema: subjectSchemas.get, handler: s.get },
    { name: 'subjects.patch', method: 'PATCH', paths: subject, authenticate: true, body: json, schema: subjectSchemas.patch, handler: s.patch, idempotent: keyed.update('subject', 'subjects.get') },
    { name: 'subjects.delete', method: 'DELETE', paths: subject, authenticate: true, schema: subjectSchemas.remove, handler: s.remove, idempotent: keyed.remove('subject') },
    { name: 'subjects.members.add', method: 'POST', paths: v1('/subjectgroup/:group_id/subjects'), authenticate: true, body: json, schema: subjectSchemas.addMembers, handler: s.addMembers, idempotent: unrenderable('subject_group') },
    { name: 'subjects.members.remove', method: 'DELETE', paths: v1('/subjectgroup/:group_id/subjects'), authenticate: true, body: json, schema: subjectSchemas.removeMembers, handler: s.removeMembers, idempotent: keyed.remove('subject_group') },

    { name: 'sources.list', method: 'GET', paths: v1('/sources'), authenticate: true, schema: sourceSchemas.list, handler: src.list },
    { name: 'sources.create', method: 'POST', paths: v1('/sources'), authenticate: true, body: json, schema: sourceSchemas.create, handler: src.create, idempotent: unrenderable('source') },
    { name: 'sources.subjects', method: 'GET', paths: v1('/source/:id/subjects'), authenticate: true, schema: sourceSchemas.subjects, handler: src.subjects },
    { name: 'sources.get', method: 'GET', paths: v1('/source/:id'), authenticate: true, schema: sourceSchemas.get, handler: src.get },
    { name: 'sources.patch', method: 'PATCH', paths: v1('/source/:id'), authenticate: true, body: json, schema: sourceSchemas.patch, handler: src.patch, idempotent: { ...keyed.update('source', 'sources.get'), query: byProvider, rereadByRecord: 'id' } },
    { name: 'sources.delete', method: 'DELETE', paths: v1('/source/:id'), authenticate: true, schema: sourceSchemas.remove, handler: src.remove, idempotent: { ...keyed.remove('source'), query: byProvider } },

    { name: 'sourceproviders.list', method: 'GET', paths: v1('/sourceproviders'), authenticate: true, schema: sourceSchemas.providers, handler: src.providers },
    { name: 'sourceproviders.create', method: 'POST', paths: v1('/sourceproviders'), authenticate: true, body: json, schema: sourceSchemas.createProvider, handler: src.createProvider, idempotent: unrenderable('source_provider') },
    { name: 'sourceproviders.patch', method: 'PATCH', paths: v1('/sourceprovider/:id'), authenticate: true, body: json, schema: sourceSchemas.patchProvider, handler: src.patchProvider, idempotent: unrenderable('source_provider') },

    { name: 'subjectsources.list', method: 'GET', paths: v1('/subjectsources'), authenticate: true, schema: sourceSchemas.assignments, handler: src.assignments },
    { name: 'subjectsources.create', method: 'POST', paths: v1('/subjectsources'), authenticate: true, body: json, schema: sourceSchemas.createAssignment, handler: src.createAssignment, idempotent: unrenderable('subject_source') },
    { name: 'subjectsources.patch', method: 'PATCH', paths: v1('/subjectsource/:id'), authenticate: true, body: json, schema: sourceSchemas.patchAssignment, handler: src.patchAssignment, idempotent: unrenderable('subject_source') },
    { name: 'subjectsources.delete', method: 'DELETE', paths: v1('/subjectsource/:id'), authenticate: true, schema: sourceSchemas.removeAssignment, handler: src.removeAssignment, idempotent: keyed.remove('subject_source') },
  ];
}
