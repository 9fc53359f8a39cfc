import { DomainError, OAuthError } from '../../domain/errors.js';
import type { OAuthService } from '../../domain/oauth/service.js';
import type { TokenForm } from '../../domain/oauth/grants.js';
import type { ClientCredentials } from '../../domain/oauth/client-auth.js';
import { type BodyLimits, type FormFields, readBody } from '../middleware/body.js';
import { decodeBasic } from '../middleware/authenticate.js';
import { requestContext, type AppContext } from '../state.js';

/** The OAuth endpoints: parse, call the authorization server, answer with no-store. */
export function oauthHandlers(oauth: OAuthService, limits: BodyLimits) {
  return {
    async token(ctx: AppContext) {
      const form = await oauthForm(ctx, limits);
      ctx.body = await oauth.token(form, clientCredentials(ctx, form), { address: ctx.ip, profile: ctx.get('User-Profile') || undefined });
      noStore(ctx);
    },

    async revoke(ctx: AppContext) {
      const form = await oauthForm(ctx, limits);
      await oauth.revoke(form, clientCredentials(ctx, form), ctx.ip);
      ctx.body = {};
      noStore(ctx);
    },

    /** 200 with `Location` (the specification's shape, which API clients read), not a 302. */
    async authorize(ctx: AppContext) {
      const single = (name: string) => {
        const value = ctx.query[name];
        if (Array.isArray(value)) throw new OAuthError('invalid_request', `Parameter ${name} was sent more than once.`);
        return value;
      };
      const location = await oauth.authorize(requestContext(ctx), {
        response_type: single('response_type'),
        client_id: single('client_id'),
        redirect_uri: single('redirect_uri'),
        state: single('state'),
        code_challenge: single('code_challenge'),
        code_challenge_method: single('code_challenge_method'),
      });
      ctx.set('Location', location);
      ctx.body = { redirect_uri: location };
      noStore(ctx);
    },
  };
}

function noStore(ctx: AppContext): void {
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Pragma', 'no-cache');
}

/** Form fields of a token or revocation request; a repeated parameter is invalid (RFC 6749 §3.2). */
async function oauthForm(ctx: AppContext, limits: BodyLimits): Promise<TokenForm> {
  let fields: FormFields;
  try {
    fields = (await readBody(ctx, ['form'], limits)) as FormFields;
  } catch (error) {
    if (error instanceof DomainError) throw new OAuthError('invalid_request', error.message, error.status === 413 ? 413 : 400);
    throw error;
  }
  const form: TokenForm = {};
  for (const [name, values] of Object.entries(fields)) {
    if (values.length > 1) throw new OAuthError('invalid_request', `Parameter ${name} was sent more than once.`);
    form[name] = values[0] ?? '';
  }
  return form;
}

function clientCredentials(ctx: AppContext, form: TokenForm): ClientCredentials {
  const [scheme = '', encoded = ''] = ctx.get('Authorization').trim().split(/\s+/);
  const basic = scheme.toLowerCase() === 'basic' ? decodeBasic(encoded) : null;
  return { basic, clientId: form.client_id, clientSecret: form.client_secret };
}

/** RFC 8414 metadata, so clients (the fieldops CLI among them) need only the base URL. */
export function authorizationServerMetadata(origin: string) {
  return {
    issuer: origin,
    authorization_endpoint: `${origin}/oauth2/authorize/`,
    token_endpoint: `${origin}/oauth2/token/`,
    revocation_endpoint: `${origin}/oauth2/revoke_token/`,
    response_types_supported: ['code'],
    grant_types_supported: ['password', 'refresh_token', 'authorization_code'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
    revocation_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
    scopes_supported: ['read', 'write'],
  };
}
