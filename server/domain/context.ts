import type { Logger } from 'pino';
import { AuthenticationError, NotAllowedError } from './errors.js';
import type { OAuthClient, User } from './model.js';
import type { Permission } from './permissions.js';

/**
 * Who is calling. A user authenticated by a bearer token (possibly acting as one of their
 * profiles through the `User-Profile` header: the profile's permissions then apply), or an
 * application identified by its OAuth client.
 */
export type Principal =
  | {
      kind: 'user';
      tenantId: string;
      user: User;
      /** The profile acted as, when the User-Profile header named one. */
      profile: User | null;
      client: OAuthClient;
      permissions: ReadonlySet<string>;
      isSuperuser: boolean;
    }
  | {
      kind: 'application';
      tenantId: string;
      client: OAuthClient;
      permissions: ReadonlySet<string>;
      isSuperuser: false;
    };

/** The explicit request context every service method receives. Services never see Koa. */
export interface RequestContext {
  readonly requestId: string;
  readonly log: Logger;
  readonly principal: Principal | null;
}

export function requirePrincipal(ctx: RequestContext): Principal {
  if (!ctx.principal) throw new AuthenticationError();
  return ctx.principal;
}

export function hasPermission(principal: Principal, permission: Permission): boolean {
  return principal.isSuperuser || principal.permissions.has(permission);
}

/** Requires any one of the permissions; returns the principal for convenience. */
export function requirePermission(ctx: RequestContext, ...anyOf: Permission[]): Principal {
  const principal = requirePrincipal(ctx);
  if (!anyOf.some((permission) => hasPermission(principal, permission))) throw new NotAllowedError();
  return principal;
}

/** The user the request acts as: the profile when one was chosen, else the caller. */
export function actingUser(principal: Principal): User | null {
  return principal.kind === 'user' ? (principal.profile ?? principal.user) : null;
}
