import type { Services } from '../../app.js';
import { eventHandlers } from '../handlers/events.js';
import { type Route, json } from './types.js';
import { eventSchemas } from '../schemas/events.js';

/** Events, and the events of a patrol segment. */
export function eventRoutes(services: Services): Route[] {
  const h = eventHandlers({ events: services.events, files: services.files, trustProxy: services.trustProxy });
  const base = '/api/v1.0/activity/events';
  const segment = '/api/v1.0/activity/patrols/segments/:id/events';
  return [
    { name: 'segments.events', method: 'GET', paths: [segment], authenticate: true, schema: eventSchemas.segmentEvents, handler: h.segmentEvents },
    { name: 'segments.events.create', method: 'POST', paths: [segment], authenticate: true, body: json, schema: eventSchemas.createSegmentEvent, handler: h.createSegmentEvent },
    { name: 'events.list', method: 'GET', paths: [base], authenticate: true, schema: eventSchemas.list, handler: h.list },
    { name: 'events.create', method: 'POST', paths: [base], authenticate: true, body: json, schema: eventSchemas.create, handler: h.create },
    { name: 'events.get', method: 'GET', paths: [`${base}/:id`], authenticate: true, schema: eventSchemas.get, handler: h.get },
    { name: 'events.patch', method: 'PATCH', paths: [`${base}/:id`], authenticate: true, body: json, schema: eventSchemas.patch, handler: h.update },
    { name: 'events.file', method: 'GET', paths: [`${base}/:id/files/:fileId/content`], authenticate: true, schema: eventSchemas.file, handler: h.fileContent },
  ];
}
