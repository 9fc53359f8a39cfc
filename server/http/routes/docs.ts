import { packageRoot } from '../../domain/users/common-passwords.js';
import fs from 'node:fs';
import path from 'node:path';
import { docsHandlers } from '../handlers/docs.js';
import { buildOpenApiDocument } from '../openapi/document.js';
import { apiDocs, apiDocsAsset, openApiDocument } from '../schemas/operations.js';
import type { Route } from './types.js';

/**
 * The API's own description (`/api/openapi.json`) and reference page (`/api/docs`), both
 * public. `table()` is the whole route table, these routes included, read on first use.
 */
export function docsRoutes(table: () => readonly Route[]): Route[] {
  const version = (JSON.parse(fs.readFileSync(path.join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version;
  const h = docsHandlers({ document: () => buildOpenApiDocument(table(), version) });
  return [
    { name: 'openapi', method: 'GET', paths: ['/api/openapi.json'], authenticate: false, schema: openApiDocument, handler: h.openapi },
    { name: 'docs', method: 'GET', paths: ['/api/docs'], authenticate: false, schema: apiDocs, handler: h.page },
    { name: 'docs.asset', method: 'GET', paths: ['/api/docs/assets/:file'], authenticate: false, schema: apiDocsAsset, handler: h.asset },
  ];
}
