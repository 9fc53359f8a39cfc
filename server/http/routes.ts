import type { BodyKind } from './middleware/body.js';
import type { AppContext } from './state.js';
import type { Services } from '../app.js';
import { healthHandlers } from './handlers/health.js';
import { authorizationServerMetadata, oauthHandlers } from './handlers/oauth.js';
import { requestOrigin } from './query.js';
import { userHandlers } from './handlers/users.js';
import { catalogHandlers } from './handlers/catalog.js';
import { choiceHandlers } from './handlers/choices.js';
import { trackedByHandler } from './handlers/trackedby.js';
import { presentCatalogCommon } from './presenters.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** One entry of the route table. Every path also answers with a trailing slash. */
export interface Route {
  name: string;
  method: Method;
  paths: readonly string[];
  /** Resolve the caller's credentials before the handler (401 on invalid ones). */
  authenticate: boolean;
  /** Body kinds parsed into ctx.state.body before the handler. */
  body?: readonly BodyKind[];
  handler: (ctx: AppContext) => Promise<void> | void;
}

/** Paths that the Python client calls under /api/v1.0 as well as at the root (CONTRACT §8). */
const rootAndV1 = (path: string) => [path, `/api/v1.0${path}`];

/** The route table: the whole HTTP surface, in one place. */
export function routeTable(services: Services): Route[] {
  const health = healthHandlers(services.store);
  const oauth = oauthHandlers(services.oauth, services.bodyLimits);
  const users = userHandlers(services.users);
  const patrolTypes = catalogHandlers(services.patrolTypes, presentCatalogCommon, { choices: services.choices, trustProxy: services.trustProxy });
  const choices = choiceHandlers(services.choices, services.trustProxy);
  const types = '/api/v1.0/activity/patrols/types';
  const json = ['json'] as const;
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
    { name: 'users.create', method: 'POST', paths: rootAndV1('/users'), authenticate: true, body: ['json'], handler: users.create },
    { name: 'users.me', method: 'GET', paths: [...rootAndV1('/users/me'), ...rootAndV1('/user/me')], authenticate: true, handler: users.me },
    { name: 'patroltypes.list', method: 'GET', paths: [types], authenticate: true, handler: patrolTypes.list },
    { name: 'patroltypes.create', method: 'POST', paths: [types], authenticate: true, body: json, handler: patrolTypes.create },
    { name: 'patroltypes.schemas', method: 'GET', paths: [`${types}/schemas`], authenticate: true, handler: patrolTypes.schemas },
    { name: 'patroltypes.detail', method: 'GET', paths: [`${types}/:key`], authenticate: true, handler: patrolTypes.detail },
    { name: 'patroltypes.replace', method: 'PUT', paths: [`${types}/:key`], authenticate: true, body: json, handler: patrolTypes.replace },
    { name: 'patroltypes.patch', method: 'PATCH', paths: [`${types}/:key`], authenticate: true, body: json, handler: patrolTypes.patch },
    { name: 'patroltypes.delete', method: 'DELETE', paths: [`${types}/:key`], authenticate: true, handler: patrolTypes.remove },
    { name: 'patroltypes.rank', method: 'POST', paths: [`${types}/:key/rank`], authenticate: true, body: json, handler: patrolTypes.rank },
    { name: 'patroltypes.schema', method: 'GET', paths: [`${types}/:key/schema`], authenticate: true, handler: patrolTypes.schema },
    { name: 'patroltypes.updates', method: 'GET', paths: [`${types}/:key/updates`], authenticate: true, handler: patrolTypes.updates },
    { name: 'trackedby', method: 'GET', paths: ['/api/v1.0/activity/patrols/trackedby'], authenticate: true, handler: trackedByHandler(services.subjects) },

    { name: 'choices.json', method: 'GET', paths: ['/v2.0/schemas/choices.json', '/api/v2.0/schemas/choices.json'], authenticate: true, handler: choices.choicesJson },
    { name: 'choices.list', method: 'GET', paths: ['/api/v2.0/choices'], authenticate: true, handler: choices.list },
    { name: 'choices.create', method: 'POST', paths: ['/api/v2.0/choices'], authenticate: true, body: json, handler: choices.create },
    { name: 'choices.get', method: 'GET', paths: ['/api/v2.0/choices/:id'], authenticate: true, handler: choices.get },
    { name: 'choices.replace', method: 'PUT', paths: ['/api/v2.0/choices/:id'], authenticate: true, body: json, handler: choices.replace },
    { name: 'choices.patch', method: 'PATCH', paths: ['/api/v2.0/choices/:id'], authenticate: true, body: json, handler: choices.patch },
    { name: 'choices.delete', method: 'DELETE', paths: ['/api/v2.0/choices/:id'], authenticate: true, handler: choices.remove },

    { name: 'users.get', method: 'GET', paths: [...rootAndV1('/user/:id'), ...rootAndV1('/users/:id')], authenticate: true, handler: users.get },
  ];
}
