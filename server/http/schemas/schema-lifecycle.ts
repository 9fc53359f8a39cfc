import { COMPAT_RULES } from '../../../schema/compat/types.js';
import { array, dateTime, errors, fieldIssue, noContent, nullable, object, ok, queryBoolean, queryDateTime, queryInteger, queryParams, readErrors, str, uuid, writeErrors } from './common.js';
import { catalogItem, eventTypeDescription, schemaEnvelope } from './catalog.js';
import { type JSONSchema, type RouteSchema, named } from './types.js';

/** Issue 28: as-of, restore, drafts and publish of v2 event types (docs: the schema lifecycle). */

const tag = 'event type lifecycle';
const params = { key: { description: 'The event type\'s id (UUID) or value (slug).', schema: str(100) } };
const withSchema = catalogItem(eventTypeDescription, true);
const detailWithSchema = (): JSONSchema => {
  const base = withSchema as { properties: Record<string, JSONSchema>; required: string[] };
  return { ...base, properties: { ...base.properties, schema: schemaEnvelope } };
};

const asOfItem: JSONSchema = named('EventTypeAsOf', (() => {
  const base = detailWithSchema() as { properties: Record<string, JSONSchema>; required: string[] };
  return {
    ...base,
    properties: { ...base.properties, revision: { type: 'integer', minimum: 1, description: 'The history `sequence` shown.' }, revision_time: dateTime },
    required: [...base.required, 'schema', 'revision', 'revision_time'],
  };
})());

const precondition428 = { 428: { description: 'Precondition required: send If-Match with the current ETag.', json: errors(428)[428]!.json } };

const preview: JSONSchema = named('RestorePreview', object({
  data: object({
    revision: { type: 'integer' },
    current: { type: 'integer', description: 'The type\'s latest history sequence.' },
    would_change: { type: 'boolean' },
    schema_before: schemaEnvelope,
    schema_after: schemaEnvelope,
  }),
}));

const draft: JSONSchema = named('SchemaDraft', object({
  data: object({
    event_type: str(50),
    based_on_revision: { type: 'integer', description: 'The type\'s latest history sequence when the draft was written.' },
    schema: schemaEnvelope,
    updated_at: dateTime,
    updated_by: nullable(object({ id: uuid, username: nullable(str()) })),
  }),
}));

const finding: JSONSchema = named('CompatFinding', {
  type: 'object',
  properties: {
    rule: { enum: [...COMPAT_RULES] },
    severity: { enum: ['error', 'warning'] },
    field: { type: 'string' },
    pointer: { type: 'string' },
    message: { type: 'string' },
    hint: { type: 'string' },
    affected_events: { type: 'integer' },
    affected_at_least: { type: 'boolean' },
    allowed: object({ reason: { type: 'string' } }),
  },
  required: ['rule', 'severity', 'pointer', 'message', 'hint', 'affected_events'],
});

const breaking: JSONSchema = {
  type: 'object',
  description: 'The error body, with `breaking_changes` (one issue of that code) and every finding (allowed ones as warnings).',
  properties: {
    status: object({ code: { type: 'integer' }, message: { type: 'string' }, detail: { type: 'string' } }),
    breaking_changes: array(fieldIssue),
    findings: array(finding),
  },
  required: ['status', 'breaking_changes', 'findings'],
  additionalProperties: false,
};

const allowBody: JSONSchema = object({
  allow_breaking: array(object({ rule: { enum: [...COMPAT_RULES] }, reason: str(500, { minLength: 1 }) }), { maxItems: 20, description: 'Deliberate breaks, each with why; recorded in the history entry\'s `note`.' }),
}, []);

export const lifecycleSchemas = {
  asOf: {
    summary: 'An event type as it stood at a revision or an instant',
    description: 'Exactly one of `revision` (a history `sequence`, see …/updates) or `date` (the latest revision written at or before it). The detail\'s presentation with `schema`, plus `revision` and `revision_time`. 404 when the type did not exist then; 400 for both or neither.',
    tags: [tag], params,
    query: queryParams({ revision: queryInteger('A history sequence (1, 2, …).'), date: queryDateTime('An instant.') }),
    responses: { 200: ok(asOfItem), ...readErrors() },
  },
  restore: {
    summary: 'Restore an event type to an earlier revision (a new revision)',
    description: 'Writes a new revision whose schema, display, category, icon, default_priority, default_state, geometry_type, is_collection and readonly equal revision N\'s (not `value`: events are recorded under it; not ordernum or is_active). `If-Match` is required (428 without; 412 stale). Content equal to the current one writes nothing. With `dry_run=true` nothing is written (If-Match then optional) and the answer is a preview.',
    tags: [tag], params,
    query: queryParams({ dry_run: queryBoolean('Preview only: write nothing.') }),
    body: { kind: 'json', schema: object({ revision: { type: 'integer', minimum: 1, maximum: 2147483647, 'x-error-code': 'invalid' } }) },
    responses: { 200: ok({ oneOf: [detailWithSchema(), preview] }, 'The event type (with schema) as restored, or the dry run\'s preview.'), ...writeErrors(), ...errors(412), ...precondition428 },
  },
  getDraft: {
    summary: 'The event type\'s draft schema (never served to field clients)',
    description: 'Needs change_eventtype. 404 when there is none.',
    tags: [tag], params,
    responses: { 200: ok(draft), ...readErrors() },
  },
  putDraft: {
    summary: 'Store (replace) the event type\'s draft schema',
    description: 'Validated as a PATCH `{"schema": …}` is. The draft is kept apart from the type: list, detail, schema, sync and history do not show it until it is published. `based_on_revision` is the type\'s latest history sequence now.',
    tags: [tag], params,
    body: { kind: 'json', schema: object({ schema: { ...schemaEnvelope, 'x-error-code': 'schema_structure_error' } }) },
    responses: { 200: ok(draft), ...writeErrors() },
  },
  deleteDraft: { summary: 'Discard the event type\'s draft', tags: [tag], params, responses: { 204: noContent, ...readErrors() } },
  publish: {
    summary: 'Publish the draft: it becomes the current schema',
    description: 'Runs the breaking-change check against what stored events hold: any break not allowed → 409 with `breaking_changes` and `findings`. `If-Match` is optional (412 when stale). Independently, 412 when the type has a revision newer than the draft\'s `based_on_revision`, unless `rebase=true` (publish over it anyway: the draft replaces the schema as written). The new history entry\'s `note` lists the allowed breaks with their reasons; the draft is removed.',
    tags: [tag], params,
    query: queryParams({ rebase: queryBoolean('Publish even though the type changed since the draft was written.') }),
    body: { kind: 'json', schema: allowBody },
    responses: { 200: ok(detailWithSchema(), 'The event type (with schema) as published.'), ...writeErrors(), ...errors(412), 409: { description: 'Breaking changes not allowed (`breaking_changes`, with findings); or the draft changed during the publish.', json: { anyOf: [breaking, errors(409)[409]!.json!] } } },
  },
} satisfies Record<string, RouteSchema>;
