import { MAX_ADDITIONAL_BYTES, MAX_BULK_IDS, MAX_TEXT } from '../../domain/messages/service.js';
import { AUTH_ERRORS, array, created, errors, noContent, nullable, ok, openObject, page, pageParams, queryBoolean, queryParams, readErrors, str, uuid, writeErrors } from './common.js';
import { type JSONSchema, type RouteSchema, named } from './types.js';

const tag = 'messages';
const messageId = { id: { description: 'A message id.' } };

/** Who a message is from or to: a subject (`observations.subject`) or a user (`accounts.user`). */
const party: JSONSchema = nullable(openObject({ content_type: { enum: ['observations.subject', 'accounts.user'] }, id: uuid }, ['content_type', 'id']));

export const message: JSONSchema = named(
  'Message',
  openObject(
    {
      id: uuid,
      sender: party,
      receiver: party,
      device: nullable(uuid),
      message_type: { enum: ['inbox', 'outbox'] },
      text: str(),
      status: { enum: ['pending', 'sent', 'errored', 'received'] },
      device_location: nullable(openObject({ latitude: { type: 'number' }, longitude: { type: 'number' } }, ['latitude', 'longitude'])),
      message_time: str(),
      read: { type: 'boolean' },
      additional: { type: 'object' },
    },
    ['id', 'sender', 'receiver', 'device', 'message_type', 'text', 'status', 'device_location', 'message_time', 'read'],
  ),
);

const target = {
  subject_id: str(64, { description: 'The subject the message is to (outbox) or from (inbox).' }),
  source_id: str(64, { description: 'The source (device) it goes through.' }),
  manufacturer_id: str(200, { description: 'The source by its manufacturer id (with provider_key when several providers have it).' }),
  provider_key: str(100),
};

const messageBody: JSONSchema = {
  type: 'object',
  properties: {
    message_type: { enum: ['inbox', 'outbox'], description: 'Default: outbox for a user, inbox for an application.' },
    text: { type: 'string', maxLength: MAX_TEXT },
    message_time: { type: ['string', 'null'], description: 'ISO 8601 (default: now).' },
    device_location: { type: ['object', 'null'], properties: { latitude: { type: 'number', minimum: -90, maximum: 90 }, longitude: { type: 'number', minimum: -180, maximum: 180 } } },
    read: { type: 'boolean' },
    status: { enum: ['pending', 'sent', 'errored', 'received'] },
    additional: { type: 'object', description: `At most ${MAX_ADDITIONAL_BYTES} bytes of JSON.` },
    sender: { type: ['object', 'string', 'null'], description: 'The subject of an inbox message (its `id`); accepted and otherwise ignored.' },
    receiver: { type: ['object', 'string', 'null'], description: 'The subject of an outbox message (its `id`); accepted and otherwise ignored.' },
    device: { type: ['string', 'null'] },
    ids: array(str(64), { maxItems: MAX_BULK_IDS, description: 'Bulk read (with `bulk_read: true`): the messages to mark.' }),
    bulk_read: { type: 'boolean' },
  },
};

export const messageSchemas: Record<string, RouteSchema> = {
  list: {
    summary: 'Messages, newest first (paginated)',
    description: 'Filters: `subject_id`, `source_id`, `read`, `message_type`. `include_additional_data=false` leaves out `additional`.',
    tags: [tag],
    query: queryParams({ ...pageParams, subject_id: str(3700, { description: 'One subject id, or several separated by commas (as the web app asks; at most 100).' }), source_id: target.source_id, read: queryBoolean('Only read (true) or unread (false) messages.'), message_type: { enum: ['inbox', 'outbox'] }, include_additional_data: queryBoolean('Include `additional` (default true).') }),
    responses: { 200: ok(page(message)), ...readErrors() },
  },
  get: { summary: 'A message', tags: [tag], params: messageId, responses: { 200: ok(message), ...readErrors() } },
  create: {
    summary: 'Send a message to a subject, or record one from it; or mark messages read in bulk',
    description:
      'The web app posts to a subject\'s messaging URL (`?subject_id=…&source_id=…`); an integration posts a device\'s message with `message_type: inbox` and the source (`source_id`, or `manufacturer_id` and `provider_key`). ' +
      'With `bulk_read: true` and `ids`, marks those messages `read` (change_message) and answers `{ids}`. A new message is pushed on the realtime channel as `radio_message`.',
    tags: [tag],
    query: queryParams(target),
    body: { kind: 'json', schema: messageBody },
    responses: { 201: created(message), 200: ok(openObject({ ids: array(uuid), read: { type: 'boolean' } }, ['ids', 'read']), 'Bulk read done'), ...writeErrors() },
  },
  patch: {
    summary: 'Mark a message read or unread',
    tags: [tag],
    params: messageId,
    body: { kind: 'json', schema: { type: 'object', properties: { read: { type: 'boolean', description: 'Required.' } } } },
    responses: { 200: ok(message), ...writeErrors() },
  },
  remove: { summary: 'Delete a message', tags: [tag], params: messageId, responses: { 204: noContent, ...errors(...AUTH_ERRORS, 404) } },
};
