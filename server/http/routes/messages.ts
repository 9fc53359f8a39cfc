import type { Services } from '../../app.js';
import { messageHandlers } from '../handlers/messages.js';
import { messageSchemas } from '../schemas/messages.js';
import { type Route, json, keyed } from './types.js';
import { unrenderable } from './keyed-unrenderable.js';

const V1 = '/api/v1.0';
/** The query parameters that choose whom a new message is to or from: part of a keyed request. */
const MESSAGE_TARGET = ['subject_id', 'source_id', 'manufacturer_id', 'provider_key'];

/**
 * Messages to and from subjects (issue 27 §5): the web app's messages menu and the Python
 * client's get/post/delete_message. The same shapes in both profiles (the earthranger one wraps
 * them in `{data, status}`). New messages reach the realtime channel (realtime/publish.ts).
 * The writes honour `Idempotency-Key`; messages are not on the sync feed (keyed-unrenderable.ts).
 */
export function messageRoutes(services: Services): Route[] {
  const h = messageHandlers({ messages: services.messages, trustProxy: services.trustProxy });
  const list = [`${V1}/messages`];
  const one = [`${V1}/messages/:id`];
  return [
    { name: 'messages.list', method: 'GET', paths: list, authenticate: true, schema: messageSchemas.list!, handler: h.list },
    { name: 'messages.create', method: 'POST', paths: list, authenticate: true, body: json, schema: messageSchemas.create!, handler: h.create, idempotent: { ...unrenderable('message'), query: MESSAGE_TARGET } },
    { name: 'messages.get', method: 'GET', paths: one, authenticate: true, schema: messageSchemas.get!, handler: h.get },
    { name: 'messages.patch', method: 'PATCH', paths: one, authenticate: true, body: json, schema: messageSchemas.patch!, handler: h.patch, idempotent: keyed.update('message', 'messages.get') },
    { name: 'messages.remove', method: 'DELETE', paths: one, authenticate: true, schema: messageSchemas.remove!, handler: h.remove, idempotent: keyed.remove('message') },
  ];
}
