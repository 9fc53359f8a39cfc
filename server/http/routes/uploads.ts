import type { Services } from '../../app.js';
import { UPLOADS_PATH } from '../../storage/tus/ports.js';
import { uploadHandlers } from '../handlers/uploads.js';
import { uploadSchemas } from '../schemas/uploads.js';
import type { Method, Route } from './types.js';

/**
 * Resumable uploads (tus 1.0): OPTIONS needs no credentials (discovery); the rest bearer
 * credentials. OPTIONS is outside `Method` (routes/types.ts): the router registers any method
 * it is given. tus's HEAD is a GET route (the router answers HEAD with a GET route; a GET is
 * answered as the HEAD, without a body).
 */
export function uploadRoutes(services: Services): Route[] {
  if (!services.uploads) return [];
  const h = uploadHandlers({ uploads: services.uploads, slots: services.uploadSlots });
  const one = `${UPLOADS_PATH}/:upload`;
  return [
    { name: 'sync.uploads.options', method: 'OPTIONS' as Method, paths: [UPLOADS_PATH, one], authenticate: false, schema: uploadSchemas.options, handler: h.options },
    { name: 'sync.uploads.create', method: 'POST', paths: [UPLOADS_PATH], authenticate: true, schema: uploadSchemas.create, handler: h.create },
    { name: 'sync.uploads.head', method: 'GET', paths: [one], authenticate: true, schema: uploadSchemas.head, handler: h.head },
    { name: 'sync.uploads.patch', method: 'PATCH', paths: [one], authenticate: true, schema: uploadSchemas.patch, handler: h.patch },
    { name: 'sync.uploads.delete', method: 'DELETE', paths: [one], authenticate: true, schema: uploadSchemas.remove, handler: h.remove },
  ];
}
