import { AUTH_ERRORS, array, dateTime, envelope, errors, nullable, object, ok, openObject, page, pageParams, queryDateTime, queryParams, readOnly, str, uuid } from './common.js';
import { type JSONSchema, type ResponseSpec, type RouteSchema, named } from './types.js';

/**
 * Sensor intake (CONTRACT §10) and its read side. Intake bodies are one item or an array of
 * 1..1000; issues are listed under `observations` with each item's index, and nothing of a
 * batch with an invalid item is stored. null counts as absent, as the intake reads it.
 */

const tag = 'sensors';
const optionalText = (maxLength: number, description?: string): JSONSchema => ({ type: ['string', 'null'], maxLength, ...(description ? { description } : {}) });

const observationProperties: Record<string, JSONSchema> = {
  manufacturer_id: optionalText(200, 'The source (collar, radio) id; required.'),
  recorded_at: { type: ['string', 'null'], format: 'date-time', description: 'ISO 8601 with an offset; required.' },
  location: {
    type: ['object', 'null'],
    properties: {
      lat: { type: ['number', 'null'], minimum: -90, maximum: 90, 'x-error-codes': { minimum: 'out_of_range', maximum: 'out_of_range' } },
      lon: { type: ['number', 'null'], minimum: -180, maximum: 180, 'x-error-codes': { minimum: 'out_of_range', maximum: 'out_of_range' } },
    },
    required: ['lat', 'lon'],
    description: '`{lat, lon}`; required.',
  },
  subject_id: { type: ['string', 'null'], format: 'uuid', description: 'An existing subject of the tenant.', 'x-error-code': 'invalid' },
  subject_name: optionalText(100),
  subject_subtype: optionalText(50),
  subject_groups: { type: ['array', 'null'], items: { type: 'string', maxLength: 100, 'x-error-code': 'invalid' }, maxItems: 20, description: 'Group names (at most 20).', 'x-error-codes': { maxItems: 'too_many' } },
  model_name: optionalText(100),
  source_type: optionalText(50),
  additional: { type: ['object', 'null'], description: 'Kept with the observation; radio state keys (`radio_state`, ...) update the subject.' },
};
const observationItem: JSONSchema = named('ObservationInput', openObject(observationProperties, ['manufacturer_id', 'recorded_at', 'location']));

const batchOf = (item: JSONSchema, description: string): JSONSchema => ({
  type: ['object', 'array'],
  description,
  items: item,
  minItems: 1,
  maxItems: 1000,
  // A single object is one item: the item's own keywords apply to it too.
  if: { type: 'object' },
  then: item,
  'x-batch-key': 'observations',
  'x-error-codes': { minItems: 'empty_batch', maxItems: 'batch_too_large' },
});

const heartbeat: JSONSchema = openObject(
  { message_key: { const: 'heartbeat' }, heartbeat: { type: 'object', description: 'Kept as the provider\'s latest status.' }, datasource: { type: ['object', 'null'] } },
  ['message_key', 'heartbeat'],
);
const radioMessage: JSONSchema = named('RadioAgentMessage', {
  type: 'object',
  // CONTRACT §11: a message without message_key is an observation.
  properties: { message_key: { enum: ['observation', 'heartbeat', null], default: 'observation', 'x-error-codes': { enum: 'invalid_choice' } } },
  allOf: [
    { if: { properties: { message_key: { enum: ['observation', null] } } }, then: observationItem },
    { if: { properties: { message_key: { const: 'heartbeat' } }, required: ['message_key'] }, then: heartbeat },
  ],
});

const intakeResult = object({ received: { type: 'integer' }, created: { type: 'integer' }, duplicates: { type: 'integer' } });
const intakeResponses = (result: JSONSchema): Record<number, ResponseSpec> => ({
  200: ok(envelope(result), 'Nothing new: every item was a duplicate (or only heartbeats).'),
  201: { description: 'Something new was stored.', json: envelope(result) },
  ...errors(400, ...AUTH_ERRORS, 404, 413, 415),
});
const providerKey = { provider_key: { description: 'The provider: 1 to 100 printable characters.', schema: str(100) } };

export const sensorSchemas = {
  status: {
    summary: 'Observations of a GPS radio (or any `<type>`) provider: one or a batch',
    tags: [tag],
    params: providerKey,
    body: { kind: 'json', schema: batchOf(observationItem, 'One observation or an array of 1 to 1000.') },
    responses: intakeResponses(intakeResult),
  },
  generic: {
    summary: 'Observations of a provider of type `<type>` (a slug; gps-radio defaults otherwise)',
    description: 'The earthranger profile answers `data: {}` (the original\'s answer).',
    tags: [tag],
    params: { type: { description: 'Provider type: a slug of at most 50 characters.', schema: str(50) }, ...providerKey },
    body: { kind: 'json', schema: batchOf(observationItem, 'One observation or an array of 1 to 1000.') },
    responses: intakeResponses({ anyOf: [intakeResult, { type: 'object', maxProperties: 0, description: 'earthranger profile.' }] }),
  },
  radioAgent: {
    summary: 'A radio agent\'s messages: observations (`message_key: observation`) and heartbeats',
    description: 'A single heartbeat is echoed (200); a batch answers with counts.',
    tags: [tag],
    params: providerKey,
    body: { kind: 'json', schema: batchOf(radioMessage, 'One message or an array of 1 to 1000.') },
    responses: intakeResponses({ anyOf: [object({ ...(intakeResult.properties as object), heartbeats: { type: 'integer' } }), { type: 'object', description: 'The heartbeat, echoed.' }] }),
  },
  cameraTrap: {
    summary: 'A camera-trap image: files a camera-trap report event with the image attached',
    tags: [tag],
    params: providerKey,
    body: {
      kind: 'multipart',
      schema: {
        type: 'object',
        properties: {
          'filecontent.file': { type: 'string', contentMediaType: 'image/*', description: 'The image (sniffed: JPEG, PNG, HEIC, WebP, GIF, TIFF or BMP).' },
          camera_name: str(100), camera_description: str(1000), camera_version: str(50),
          time: str(undefined, { description: 'ISO 8601 with an offset; else the EXIF time, else now.' }),
          location: str(undefined, { description: 'JSON `{latitude, longitude}`.' }),
          group_id: str(undefined, { description: 'Add the image to this existing report (404 when unknown).' }),
        },
        required: ['filecontent.file'],
      },
    },
    responses: { 201: { description: 'Filed.', json: envelope(object({ group_id: uuid })) }, ...errors(400, ...AUTH_ERRORS, 404, 409, 413, 415, 429) },
  },
} satisfies Record<string, RouteSchema>;

const observation = named('Observation', object({
  id: uuid,
  source: uuid,
  subject: nullable(uuid),
  recorded_at: dateTime,
  created_at: dateTime,
  location: object({ latitude: { type: 'number' }, longitude: { type: 'number' } }),
  observation_details: { type: 'object' },
}));

/** An observation of `POST observations`: `source` is a source id or manufacturer id. */
const postedItem: JSONSchema = named('PostedObservation', object({
  source: str(200, { description: 'A source id or manufacturer id; required (400 when unknown).' }),
  provider: { type: ['string', 'null'], maxLength: 100, description: 'A provider key or id: picks among sources of several providers sharing the manufacturer id `source` (400 `ambiguous_source` without it).' },
  recorded_at: { type: 'string', format: 'date-time', description: 'ISO 8601 with an offset; required.' },
  location: observationProperties.location!,
  additional: { type: ['object', 'null'], description: 'Kept with the observation as `observation_details`.' },
  ...Object.fromEntries(['id', 'created_at', 'observation_details', 'subject'].map((field) => [field, readOnly()])),
}, ['source', 'recorded_at', 'location']));

export const readSchemas = {
  observations: {
    summary: 'Observations (needs view_observation)',
    tags: ['observations'],
    query: queryParams({
      source_id: { type: 'string', format: 'uuid', 'x-error-code': 'invalid' },
      subject_id: { type: 'string', format: 'uuid', 'x-error-code': 'invalid' },
      since: queryDateTime('recorded_at at or after.'),
      until: queryDateTime('recorded_at at or before.'),
      ordering: { enum: ['recorded_at', '-recorded_at'], description: 'Default recorded_at.' },
      ...pageParams,
    }),
    responses: { 200: ok(envelope(page(observation))), ...errors(400, ...AUTH_ERRORS, 404) },
  },
  create: {
    summary: 'Stores observations of existing sources (the original\'s; needs add_observation): one or a batch',
    description: 'Each fix goes to the subject whose assignment covers its time (`subjectsources`); duplicates of source and recorded_at are skipped (200 when nothing was new).',
    tags: ['observations'],
    body: { kind: 'json', schema: batchOf(postedItem, 'One observation or an array of 1 to 1000.') },
    responses: {
      201: { description: 'Stored: the observation (one sent) or the list, as stored.', json: envelope({ anyOf: [observation, array(observation)] }) },
      200: ok(envelope({ anyOf: [observation, array(observation)] }), 'Every item was stored before.'),
      ...errors(400, ...AUTH_ERRORS, 413, 415),
    },
  },
} satisfies Record<string, RouteSchema>;
