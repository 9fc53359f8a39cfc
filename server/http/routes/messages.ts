import type { Services } from '../../app.js';
import { messageHandlers } from '../handlers/messages.js';
import { messageSchemas } from '../schemas/messages.js';
import { type Route, json } from './types.js';

const V1 = '/api/v1.0';

/**
 * Messages to and from subjects (issue 27 §5): the web app's messages menu and the Python
 * client's get/post/delete_message. The same shapes in both profiles (the earthranger one wraps
 * them in `{data, status}`). New messages reach the realtime channel (realtime/publish.ts).
 */
export function messageRoutes(services: Services): Route[] {
  const h = messageHandlers({ messages: services.messages, trustProxy: services.trustProxy });
  const list = [`${V1}/messages`];
  const one = [`${V1}/messages/:id`];
  return [
    { name: 'messages.list', method: 'GET', paths: list, authenticate: true, schema: messageSchemas.list!, handler: h.list },
    { name: 'messages.create', method: 'POST', paths: list, authenticate: true, body: json, schema: messageSchemas.create!, handler: h.create },
    { name: 'messages.get', method: 'GET', paths: one, authenticate: true, schema: messageSchemas.get!, handler: h.get },
    { name: 'messages.patch', method: 'PATCH', paths: one, authenticate: true, body: json, schema: messageSchemas.patch!, handler: h.patch },
    { name: 'messages.remove', method: 'DELETE', paths: one, authenticate: true, schema: messageSchemas.remove!, handler: h.remove },
  ];
}
