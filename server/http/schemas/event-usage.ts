import { array, errors, notModified, object, ok, openObject, queryBoolean, queryParams, readErrors, str } from './common.js';
import { type JSONSchema, type RouteSchema, named } from './types.js';

const tag = 'event types';
const count: JSONSchema = { type: 'integer', minimum: 0 };
const KINDS = ['string', 'integer', 'number', 'boolean', 'null', 'object', 'array'];

/** schema/compat/types.ts `FieldUsage`, exactly. */
const fieldUsage: JSONSchema = named('FieldUsage', object(
  {
    events: count,
    kinds: { type: 'object', propertyNames: { enum: KINDS }, additionalProperties: count, description: 'Events by the JSON kind of the value (array elements not counted here).' },
    values: array(object({ value: { type: ['string', 'number', 'boolean'] }, events: count }), { maxItems: 1000, description: 'Distinct scalar values (strings up to 200 characters, numbers, booleans; array elements each once per event), most frequent first; at most 1,000.' }),
    values_complete: { type: 'boolean', description: 'False when more distinct values exist than listed, or strings longer than 200 characters.' },
    min: { type: 'number' },
    max: { type: 'number' },
    min_length: count,
    max_length: count,
  },
  ['events', 'kinds', 'values', 'values_complete'],
));

/** schema/compat/types.ts `UsageSummary`, exactly. */
export const usageSummary: JSONSchema = named('UsageSummary', object({
  event_type: str(),
  events: count,
  fields: { type: 'object', additionalProperties: fieldUsage, description: 'By top-level `event_details` key.' },
  fields_complete: { type: 'boolean', description: 'False when the events hold more keys than listed: at most 1,000 per summary, and 2,000 fields and 20,000 values per answer (a field is listed whole or not at all). Ask for the rest one type at a time.' },
}));

const description = 'Kept incrementally with every event write (never a scan of events); read from one snapshot. Needs the event-type view permission and `view_event`. The ETag (strong) is a hash of the answer: If-None-Match answers 304 while it still matches.';
const etagged = (json: JSONSchema) => ({ ...ok(json), headers: { ETag: 'A hash of this answer; send it in If-None-Match.' } });

export const eventUsageSchemas = {
  one: {
    summary: 'Usage summary of the events recorded under an event type (by its value)',
    description,
    tags: [tag],
    params: { key: { description: 'The event type\'s id (UUID) or value (slug).', schema: str(100) } },
    query: queryParams({ include_inactive: queryBoolean('Reach a deactivated event type.') }),
    responses: { 200: etagged(openObject({ data: usageSummary }, ['data'])), 304: notModified, ...readErrors() },
  },
  many: {
    summary: 'Usage summaries of several event type values',
    description: `${description} A value no event type has is summarised too (events may carry it).`,
    tags: [tag],
    query: queryParams({ types: str(200 * 101, { description: 'Comma-separated event type values: 1 to 200, each 1 to 100 characters (required; checked after the permissions).', examples: ['wildlife_sighting,fire'] }) }),
    responses: { 200: etagged(openObject({ data: array(usageSummary) }, ['data'])), 304: notModified, ...errors(400, 401, 403, 429, 503) },
  },
} satisfies Record<string, RouteSchema>;
