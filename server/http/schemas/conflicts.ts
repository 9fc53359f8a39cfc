/**
 * Conflicts kept with both values and the revision history of events and patrols (issue 26 §3;
 * fieldops extension, the same shapes in every response profile).
 */
import { MERGE_KINDS } from '../../../protocol/merge-fields.js';
import { AUTH_ERRORS, array, dateTime, errorBody, errors, nullable, nullableDateTime, object, ok, str, uuid } from './common.js';
import { type JSONSchema, type ResponseSpec, type RouteSchema, named } from './types.js';

const tag = 'sync';
const kind: JSONSchema = { enum: [...MERGE_KINDS] };
const revision: JSONSchema = { type: 'integer', minimum: 1 };
const anyValue: JSONSchema = { description: 'A field value as JSON (protocol/merge-fields.ts): times ISO 8601 UTC, locations {latitude, longitude}; null when absent.' };

export const conflictJson: JSONSchema = named('Conflict', object({
  id: uuid,
  kind,
  record: uuid,
  field: { ...str(200), description: '`state`, `event_details.species`, `segments.<id>.end_time` (protocol/merge-fields.ts).' },
  base: anyValue,
  mine: anyValue,
  theirs: anyValue,
  status: { enum: ['open', 'settled'] },
  policy: { enum: ['hold', 'server_wins', 'last_writer_wins'] },
  settled_by: { enum: ['policy', 'mine', 'theirs', null], description: 'Which value stands once settled (`policy`: theirs for server_wins, mine for last_writer_wins).' },
  base_revision: nullable(revision),
  theirs_revision: nullable(revision),
  revision: { ...revision, description: 'The revision the conflicting update made.' },
  settled_revision: nullable(revision),
  device: nullable(str(64)),
  user: nullable(uuid),
  settled_user: nullable(uuid),
  created_at: dateTime,
  settled_at: nullableDateTime,
}));

const revisionJson: JSONSchema = named('RecordRevision', object({
  revision,
  action: { enum: ['updated', 'settled'] },
  base_revision: nullable(revision),
  fields: { type: 'object', additionalProperties: { type: 'array', minItems: 2, maxItems: 2 }, description: '`{path: [before, after]}` of every field the revision changed.' },
  merged: { ...array(str(200)), description: 'Fields changed since the base that the update did not name: kept.' },
  conflicts: { ...array(uuid), description: 'Conflicts the revision recorded.' },
  user: nullable(uuid),
  client: nullable(str(100)),
  device: nullable(str(64)),
  at: dateTime,
}));

const notFound: ResponseSpec = { description: 'No such conflict or record in your tenant.', json: errorBody };
const refused: ResponseSpec = {
  description: 'The conflict cannot be settled that way: settled already with the other choice (`conflict_settled`), or the field changed after the conflict (`conflict_stale`, the message carries its value now).',
  json: errorBody,
};

export const conflictSchemas: Record<'list' | 'resolve' | 'history', RouteSchema> = {
  list: {
    summary: 'Conflicts kept with both values (base, mine, theirs), newest first (at most 500)',
    tags: [tag],
    query: { type: 'object', properties: { status: { enum: ['open', 'settled'] }, kind, record: uuid } },
    responses: { 200: ok(object({ conflicts: array(conflictJson) })), ...errors(400, ...AUTH_ERRORS) },
  },
  resolve: {
    summary: 'Settle a conflict with the offline value (mine: written as a new revision) or the server\'s (theirs)',
    description: 'Idempotent: the same choice again answers the settled conflict. Needs change_<kind>.',
    tags: [tag],
    params: { id: { description: 'The conflict id.', schema: uuid } },
    body: { kind: 'json', schema: object({ choice: { enum: ['mine', 'theirs'] } }) },
    responses: { 200: ok(conflictJson), ...errors(400, ...AUTH_ERRORS, 413, 415), 404: notFound, 409: refused },
  },
  history: {
    summary: 'A record\'s revisions (who, which device, which fields, merged) and its conflicts',
    tags: [tag],
    params: { kind: { description: 'event or patrol', schema: kind }, id: { description: 'The record id.', schema: uuid } },
    responses: {
      200: ok(object({ kind, id: uuid, revision, revisions: array(revisionJson), conflicts: array(conflictJson) })),
      ...errors(400, ...AUTH_ERRORS), 404: notFound,
    },
  },
};
