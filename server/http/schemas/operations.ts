import { errorBody, errors, notModified, ok } from './common.js';
import type { RouteSchema } from './types.js';

/** The API's own description, its reference page, and the metrics. */

export const openApiDocument: RouteSchema = {
  summary: 'This API as an OpenAPI 3.1 document',
  description: 'Generated from the JSON Schemas the server validates requests with. Strong `ETag`; revalidate with If-None-Match (304).',
  tags: ['operations'],
  responses: { 200: ok({ type: 'object', required: ['openapi', 'paths'], properties: { openapi: { const: '3.1.0' }, paths: { type: 'object' } } }), 304: notModified },
  security: 'public',
};

export const apiDocs: RouteSchema = {
  summary: 'The API reference page (works offline: the viewer is served from here)',
  tags: ['operations'],
  responses: { 200: { description: 'An HTML page.', mediaType: 'text/html' } },
  security: 'public',
};

export const apiDocsAsset: RouteSchema = {
  summary: 'A static asset of the API reference page',
  description: 'Cached for a day (`Cache-Control: public, max-age=86400`) with a strong ETag.',
  tags: ['operations'],
  params: { file: { description: 'The asset\'s file name.', schema: { type: 'string' } } },
  responses: {
    200: { description: 'The asset (CSS, JavaScript or PNG).', mediaType: 'application/octet-stream' },
    304: notModified,
    404: { description: 'No such asset.', json: errorBody },
  },
  security: 'public',
};

export const metrics: RouteSchema = {
  summary: 'Prometheus metrics',
  description:
    'Request durations by route and status, conditional-GET outcomes, tokens issued by grant, sensor observations by outcome, and the database pool. Needs `Authorization: Bearer <FIELDOPS_METRICS_TOKEN>` (works while the database is down), or a principal with the `view_metrics` permission (superusers have it).',
  tags: ['operations'],
  responses: { 200: { description: 'The Prometheus text format.', mediaType: 'text/plain' }, ...errors(401, 403, 503) },
  security: 'metrics',
};
