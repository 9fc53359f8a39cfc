import type { Services } from '../../app.js';
import { healthHandlers } from '../handlers/health.js';
import { authorizationServerMetadata, oauthHandlers } from '../handlers/oauth.js';
import { userHandlers } from '../handlers/users.js';
import { requestOrigin } from '../query.js';
import { type Route, json, rootAndV1 } from './types.js';

/** Health, OAuth 2 and users. */
export function coreRoutes(services: Services): Route[] {
  const health = healthHandlers(services.store);
  const oauth = oauthHandlers(services.oauth, services.bodyLimits);
  const users = userHandlers(services.users);
  return [
    { name: 'healthz', method: 'GET', paths: ['/healthz'], authenticate: false, handler: health.healthz },
    { name: 'readyz', method: 'GET', paths: ['/readyz'], authenticate: false, handler: health.readyz },
    {
      name: 'oauth.metadata',
      method: 'GET',
      paths: ['/.well-known/oauth-authorization-server'],
      authenticate: false,
      handler: (ctx) => void (ctx.body = authorizationServerMetadata(requestOrigin(ctx, services.trustProxy))),
    },
    { name: 'oauth.token', method: 'POST', paths: ['/oauth2/token'], authenticate: false, handler: oauth.token },
    { name: 'oauth.revoke', method: 'POST', paths: ['/oauth2/revoke_token'], authenticate: false, handler: oauth.revoke },
    { name: 'oauth.authorize', method: 'GET', paths: ['/oauth2/authorize'], authenticate: true, handler: oauth.authorize },

    { name: 'users.list', method: 'GET', paths: rootAndV1('/users'), authenticate: true, handler: users.list },
    { name: 'users.create', method: 'POST', paths: rootAndV1('/users'), authenticate: true, body: json, handler: users.create },
    { name: 'users.me', method: 'GET', paths: [...rootAndV1('/users/me'), ...rootAndV1('/user/me')], authenticate: true, handler: users.me },
    { name: 'users.get', method: 'GET', paths: [...rootAndV1('/user/:id'), ...rootAndV1('/users/:id')], authenticate: true, handler: users.get },
  ];
}
