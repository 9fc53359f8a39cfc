import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { NotFoundError } from '../../domain/errors.js';
import { etagListMatches } from '../conditional.js';
import type { AppContext } from '../state.js';

/**
 * The API's description and its reference page. The page uses Swagger UI from the
 * `swagger-ui-dist` package, served from here: no CDN, no fonts or calls elsewhere (a
 * Content-Security-Policy keeps it so), and the validator badge (which calls out) is off.
 */
const require = createRequire(import.meta.url);
const VIEWER_DIR = path.dirname(require.resolve('swagger-ui-dist/package.json'));
const VIEWER_VERSION = (JSON.parse(fs.readFileSync(path.join(VIEWER_DIR, 'package.json'), 'utf8')) as { version: string }).version;

const ASSETS: Record<string, { file?: string; type: string }> = {
  'swagger-ui.css': { file: 'swagger-ui.css', type: 'text/css; charset=utf-8' },
  'swagger-ui-bundle.js': { file: 'swagger-ui-bundle.js', type: 'text/javascript; charset=utf-8' },
  'favicon-32x32.png': { file: 'favicon-32x32.png', type: 'image/png' },
  'favicon-16x16.png': { file: 'favicon-16x16.png', type: 'image/png' },
  'init.js': { type: 'text/javascript; charset=utf-8' },
};

const INIT_SCRIPT = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '/api/openapi.json',
    dom_id: '#api-reference',
    deepLinking: true,
    validatorUrl: null,
    docExpansion: 'list',
    defaultModelsExpandDepth: 0,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
  });
});
`;

const asset = (name: string) => `/api/docs/assets/${name}?v=${VIEWER_VERSION}`;
const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>fieldops API reference</title>
<link rel="icon" type="image/png" sizes="32x32" href="${asset('favicon-32x32.png')}">
<link rel="stylesheet" href="${asset('swagger-ui.css')}">
</head>
<body>
<div id="api-reference"></div>
<script src="${asset('swagger-ui-bundle.js')}"></script>
<script src="${asset('init.js')}"></script>
</body>
</html>
`;

const CSP = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

interface Cached {
  body: Buffer;
  etag: string;
}

const strongEtag = (body: Buffer | string) => `"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"`;

/** `document()` is the OpenAPI document of the route table; it is built and hashed once. */
export function docsHandlers(deps: { document: () => Record<string, unknown> }) {
  let described: { text: string; etag: string } | null = null;
  const cache = new Map<string, Cached>();
  const load = (name: string): Cached => {
    let cached = cache.get(name);
    if (!cached) {
      const spec = ASSETS[name]!;
      const body = spec.file ? fs.readFileSync(path.join(VIEWER_DIR, spec.file)) : Buffer.from(INIT_SCRIPT);
      cache.set(name, (cached = { body, etag: strongEtag(body) }));
    }
    return cached;
  };
  return {
    /** Strong ETag of the exact bytes; If-None-Match → 304. */
    openapi(ctx: AppContext) {
      if (!described) {
        const text = JSON.stringify(deps.document());
        described = { text, etag: strongEtag(text) };
      }
      ctx.set('ETag', described.etag);
      ctx.set('Cache-Control', 'no-cache');
      if (etagListMatches(ctx.get('If-None-Match'), described.etag)) {
        ctx.status = 304;
        return;
      }
      ctx.type = 'application/json; charset=utf-8';
      ctx.body = described.text;
    },

    page(ctx: AppContext) {
      ctx.set('Content-Security-Policy', CSP);
      ctx.set('X-Content-Type-Options', 'nosniff');
      ctx.set('Cache-Control', 'no-cache');
      ctx.type = 'text/html; charset=utf-8';
      ctx.body = PAGE;
    },

    /** Versioned URLs (`?v=`), so a day of caching is safe; revalidation by ETag after that. */
    asset(ctx: AppContext) {
      const name = String(ctx.params.file);
      if (!Object.prototype.hasOwnProperty.call(ASSETS, name)) throw new NotFoundError('No such asset.');
      const { body, etag } = load(name);
      ctx.set('ETag', etag);
      ctx.set('Cache-Control', 'public, max-age=86400');
      ctx.set('X-Content-Type-Options', 'nosniff');
      if (etagListMatches(ctx.get('If-None-Match'), etag)) {
        ctx.status = 304;
        return;
      }
      ctx.type = ASSETS[name]!.type;
      ctx.body = body;
    },
  };
}
