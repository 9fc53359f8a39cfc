import { AuthenticationError } from '../../domain/errors.js';
import type { OAuthService } from '../../domain/oauth/service.js';
import { queryString } from '../query.js';
import type { Middleware } from '../state.js';

/**
 * Resolves the caller (CONTRACT §2): `Authorization: Bearer <token>` (scheme case-insensitive)
 * for a user, else the `client_id` query parameter (+ secret by HTTP Basic or `client_secret`)
 * for an application. No credentials leaves the principal null; services decide whether that
 * is allowed. Invalid credentials are always 401.
 */
export function authenticate(oauth: OAuthService): Middleware {
  return async (ctx, next) => {
    const header = ctx.get('Authorization');
    const [scheme = '', ...rest] = header.trim().split(/\s+/);
    const credentials = rest.join(' ');
    const basic = scheme.toLowerCase() === 'basic' ? decodeBasic(credentials) : null;
    if (scheme.toLowerCase() === 'bearer') {
      if (!credentials) throw new AuthenticationError('Invalid token header. No credentials provided.', 'invalid_token');
      ctx.state.principal = await oauth.authenticateBearer(credentials, ctx.get('User-Profile') || undefined);
    } else {
      const clientId = queryString(ctx, 'client_id') ?? basic?.clientId;
      if (clientId) {
        const secret = basic && basic.clientId === clientId ? basic.secret : queryString(ctx, 'client_secret');
        ctx.state.principal = await oauth.authenticateApplication(clientId, secret, ctx.ip);
      } else if (header) {
        throw new AuthenticationError('Unsupported authorization scheme; use Bearer.');
      }
    }
    await next();
  };
}

/** `Basic base64(id:secret)`, with the form-encoding of RFC 6749 §2.3.1. */
export function decodeBasic(credentials: string): { clientId: string; secret: string } | null {
  let decoded: string;
  try {
    decoded = Buffer.from(credentials, 'base64').toString('utf8');
  } catch {
    return null;
  }
  const colon = decoded.indexOf(':');
  if (colon < 0) return null;
  const unescape = (value: string) => {
    try {
      return decodeURIComponent(value.replace(/\+/g, ' '));
    } catch {
      return value;
    }
  };
  return { clientId: unescape(decoded.slice(0, colon)), secret: unescape(decoded.slice(colon + 1)) };
}
