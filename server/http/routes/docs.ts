import { packageRoot } from '../../domain/users/common-passwords.js';
import fs from 'node:fs';
import path from 'node:path';
import { docsHandlers } from '../handlers/docs.js';
import { buildOpenApiDocument } from '../openapi/document.js';
import { apiDocs, apiDocsAsset, openApiDocument } from '../schemas/operations.js';
import type { Route } from './types.js';
import { earthRangerResponses } from '../presentation/openapi.js';

/** The same table in the `earthranger` response profile (CONTRACT §11). */
const EARTHRANGER_VARIANT = {
  title: 'fieldops API (earthranger profile)',
  introduction:
    'The same API as `/api/openapi.json`, as clients in the `earthranger` response profile see it (CONTRACT §11): JSON bodies wrapped in `{data, status: {code, message}}`, a 204 answered 200 with `data: null`. OAuth, health and the v2 schema documents are the same in both profiles; errors are the same body in both.',
  responsesOf: earthRangerResponses,
};

/**
 * The API's own description (`/api/openapi.json`) and reference page (`/api/docs`), both
 * public. `table()` is the whole route table, these routes included, read on first use.
 */
export function docsRoutes(table: () => readonly Route[]): Route[] {
  const version = (JSON.parse(fs.readFileSync(path.join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version;
  const h = docsHandlers({ document: () => buildOpenApiDocument(table(), version) });
  const earthranger = docsHandlers({ document: () => buildOpenApiDocument(table(), version, EARTHRANGER_VARIANT) });
  return [
    { name: 'openapi', method: 'GET', paths: ['/api/openapi.json'], authenticate: false, schema: openApiDocument, handler: h.openapi },
    { name: 'openapi.earthranger', method: 'GET', paths: ['/api/openapi-earthranger.json'], authenticate: false, schema: openApiDocument, handler: earthranger.openapi },
    { name: 'docs', method: 'GET', paths: ['/api/docs'], authenticate: false, schema: apiDocs, handler: h.page },
    { name: 'docs.asset', method: 'GET', paths: ['/api/docs/assets/:file'], authenticate: false, schema: apiDocsAsset, handler: h.asset },
  ];
}
