import type { Services } from '../../app.js';
import { healthHandlers } from '../handlers/health.js';
import { authorizationServerMetadata, oauthHandlers } from '../handlers/oauth.js';
import { userHandlers } from '../handlers/users.js';
import { metricsHandler } from '../handlers/metrics.js';
import { metrics as metricsSchema } from '../schemas/operations.js';
import { requestOrigin } from '../query.js';
import { type Route, json, rootAndV1 } from './types.js';
import * as core from '../schemas/core.js';

/** Health, OAuth 2 and users. */
export function coreRoutes(services: Services): Route[] {
  const health = healthHandlers(services.store);
  const oauth = oauthHandlers(services.oauth, services.bodyLimits);
  const users = userHandlers(services.users);
  return [
    { name: 'healthz', method: 'GET', paths: ['/healthz'], authenticate: false, schema: core.healthz, handler: health.healthz },
    { name: 'readyz', method: 'GET', paths: ['/readyz'], authenticate: false, schema: core.readyz, handler: health.readyz },
    { name: 'metrics', method: 'GET', paths: ['/metrics'], authenticate: false, schema: metricsSchema, handler: metricsHandler({ metrics: services.metrics, oauth: services.oauth, token: services.metricsToken }) },
    {
      name: 'oauth.metadata',
      method: 'GET',
      paths: ['/.well-known/oauth-authorization-server'],
      authenticate: false,
      schema: core.oauthMetadata, handler: (ctx) => void (ctx.body = authorizationServerMetadata(requestOrigin(ctx, services.trustProxy))),
    },
    { name: 'oauth.token', method: 'POST', paths: ['/oauth2/token'], authenticate: false, schema: core.oauthToken, handler: oauth.token },
    { name: 'oauth.revoke', method: 'POST', paths: ['/oauth2/revoke_token'], authenticate: false, schema: core.oauthRevoke, handler: oauth.revoke },
    { name: 'oauth.authorize', method: 'GET', paths: ['/oauth2/authorize'], authenticate: true, schema: core.oauthAuthorize, handler: oauth.authorize },

    { name: 'users.list', method: 'GET', paths: rootAndV1('/users'), authenticate: true, schema: core.usersList, handler: users.list },
    { name: 'users.create', method: 'POST', paths: rootAndV1('/users'), authenticate: true, body: json, schema: core.usersCreate, handler: users.create },
    { name: 'users.get', method: 'GET', paths: [...rootAndV1('/user/:id'), ...rootAndV1('/users/:id')], authenticate: true, schema: core.usersGet, handler: users.get },
  ];
}
