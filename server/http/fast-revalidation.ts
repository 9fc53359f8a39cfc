import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import querystring from 'node:querystring';
import type { Services } from '../app.js';
import type { CatalogService } from '../domain/catalog/service.js';
import type { CatalogItem } from '../domain/model.js';
import { readListQuery } from './catalog-query.js';
import { httpDate, isNotModified } from './conditional.js';
import { etagForNotModified } from './content-coding.js';
import { noteDefaultProfile } from './presentation/caller-profile.js';
import { requestOrigin } from './query.js';
import type { AppContext } from './state.js';

const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The revalidation fast path: a conditional GET of a catalog list that will be answered 304
 * is answered before the request enters Koa. Field laptops revalidate far more often than
 * anything changes, so this is the hot path of the whole service.
 *
 * It is the same decision as the Koa route makes (same query parsing, same authentication, same
 * `listValidators`, same precondition evaluation), only without the middleware around it.
 * Anything else (no precondition, a changed catalog, bad credentials, a bad query, a failure)
 * returns false, and the request goes through Koa unchanged, which answers it in full.
 *
 * The query is read for the caller's profile, as the route reads it (catalog-query.ts): the
 * earthranger profile's v2 event types carry `has_events_assigned`, whose usage is part of their
 * tag, so a tag the route would not produce for this caller (one from before that field, equal
 * to the fieldops profile's) never matches here. Hence authentication comes before the query.
 */
export function fastRevalidation(services: Services): (req: IncomingMessage, res: ServerResponse) => Promise<boolean> {
  const lists = new Map<string, { service: CatalogService<CatalogItem>; route: string }>([
    ['/api/v1.0/activity/patrols/types', { service: services.patrolTypes, route: 'patroltypes.list' }],
    ['/api/v2.0/activity/eventtypes', { service: services.eventTypes as unknown as CatalogService<CatalogItem>, route: 'eventtypes.list' }],
  ]);
  return async (req, res) => {
    const started = process.hrtime.bigint();
    if (req.method !== 'GET' || !req.headers['if-none-match']) return false;
    const authorization = req.headers.authorization ?? '';
    if (!/^bearer\s+\S/i.test(authorization)) return false;
    const url = req.url ?? '';
    const queryAt = url.indexOf('?');
    const path = (queryAt < 0 ? url : url.slice(0, queryAt)).replace(/\/$/, '');
    const target = lists.get(path);
    if (!target) return false;
    const header = (name: string) => {
      const value = req.headers[name.toLowerCase()];
      return Array.isArray(value) ? value.join(', ') : value ?? '';
    };
    try {
      const profile = header('User-Profile') || undefined;
      const principal = await services.oauth.authenticateBearer(authorization.replace(/^bearer\s+/i, '').trim(), profile);
      // Just enough of a Koa context for the shared parsing and validator helpers, with the
      // principal and the server's default profile the route's query reading depends on.
      const ctx = { query: querystring.parse(queryAt < 0 ? '' : url.slice(queryAt + 1)), get: header, protocol: 'http', state: { principal } } as unknown as AppContext;
      noteDefaultProfile(ctx, services.apiProfile);
      const query = readListQuery(ctx);
      const inbound = header('X-Request-Id');
      const requestId = SANE_REQUEST_ID.test(inbound) ? inbound : randomUUID();
      const validators = await target.service.listValidators({ requestId, log: services.logger, principal }, query, requestOrigin(ctx, services.trustProxy));
      if (!isNotModified(ctx, validators)) return false;
      // As the Koa path answers (middleware/compress.ts): the coded tag the client holds, if it sent one.
      const etag = etagForNotModified(header('If-None-Match'), validators.etag);
      const headers: Record<string, string> = { 'X-Request-Id': requestId, ETag: etag, 'Cache-Control': 'private, no-cache', Vary: 'Accept-Encoding' };
      if (validators.lastModified !== undefined) headers['Last-Modified'] = httpDate(validators.lastModified);
      res.writeHead(304, headers);
      res.end();
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      services.metrics.observeRequest(target.route, 'GET', 304, seconds);
      services.metrics.conditionalGet(target.route, 304);
      if (services.logger.isLevelEnabled('info')) {
        services.logger.info({ requestId, method: 'GET', path, route: target.route, status: 304, durationMs: Math.round(seconds * 1e4) / 10, fast: true }, 'request');
      }
      return true;
    } catch {
      return false;
    }
  };
}
