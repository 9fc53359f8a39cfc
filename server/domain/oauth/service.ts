import { randomUUID } from 'node:crypto';
import type { Clock } from '../../db/time.js';
import { hashSecret, randomToken, sha256Hex, verifySecret } from '../../security/crypto.js';
import type { ThrottleConfig } from '../../config.js';
import { type Principal, type RequestContext, requirePrincipal } from '../context.js';
import { AuthenticationError, NotAllowedError, OAuthError } from '../errors.js';
import { isUuid } from '../ids.js';
import type { Store } from '../ports.js';
import { type ClientCredentials, authenticateClient, clientServesTenant, requireGrant } from './client-auth.js';
import type { OAuthDeps, OAuthMetrics } from './deps.js';
import { type TokenForm, authorizationCodeGrant, passwordGrant, refreshGrant } from './grants.js';
import { SCOPE, type TokenResponse } from './issue.js';
import { isValidChallenge } from './pkce.js';
import { appendQuery, redirectUriMatches } from './redirect-uri.js';
import { LoginThrottle } from './throttle.js';
import type { PrincipalCache } from './principal-cache.js';

export interface OAuthServiceOptions {
  store: Store;
  clock: Clock;
  accessTokenTtlSeconds: number;
  refreshTokenTtlSeconds: number;
  authorizationCodeTtlSeconds: number;
  passwordHashCost: number;
  throttle: ThrottleConfig;
  /** Resolved credentials, briefly (see PrincipalCache for the contract). */
  principals: PrincipalCache;
  /** Counts tokens issued by grant (the metrics); none by default. */
  metrics?: OAuthMetrics;
}

export interface AuthorizeQuery {
  response_type?: string;
  client_id?: string;
  redirect_uri?: string;
  state?: string;
  code_challenge?: string;
  code_challenge_method?: string;
}

/** The authorization server (CONTRACT §9) and the resolution of request credentials. */
export class OAuthService {
  private readonly deps: OAuthDeps;
  private readonly metrics: OAuthMetrics;
  private decoy: Promise<string> | null = null;
  private readonly principals: PrincipalCache;

  constructor(options: OAuthServiceOptions) {
    this.principals = options.principals;
    this.metrics = options.metrics ?? { tokenIssued: () => undefined };
    this.deps = {
      store: options.store,
      clock: options.clock,
      throttle: new LoginThrottle(options.store.repos.throttle, options.throttle, options.clock),
      ttl: { accessTtlSeconds: options.accessTokenTtlSeconds, refreshTtlSeconds: options.refreshTokenTtlSeconds },
      authorizationCodeTtlSeconds: options.authorizationCodeTtlSeconds,
      decoyHash: () => (this.decoy ??= hashSecret(randomToken(), options.passwordHashCost)),
    };
  }

  async token(form: TokenForm, credentials: ClientCredentials, address: string): Promise<TokenResponse> {
    const grantType = form.grant_type;
    if (!grantType) throw new OAuthError('invalid_request', 'Missing parameter: grant_type.');
    const client = await authenticateClient(this.deps.store.repos.clients, credentials);
    // A refresh or code grant may revoke a family (reuse, replay): forget resolved tokens.
    if (grantType !== 'password') this.principals.clear();
    let issued: TokenResponse;
    switch (grantType) {
      case 'password':
        issued = await passwordGrant(this.deps, client, form, address);
        break;
      case 'refresh_token':
        issued = await refreshGrant(this.deps, client, form);
        break;
      case 'authorization_code':
        issued = await authorizationCodeGrant(this.deps, client, form);
        break;
      default:
        throw new OAuthError('unsupported_grant_type', `Unsupported grant_type: ${grantType}.`);
    }
    this.metrics.tokenIssued(grantType);
    return issued;
  }

  /**
   * A logged-in user authorises a client: returns the callback URL carrying a fresh code.
   * Client and redirect URI problems are reported to the caller, never to the redirect URI.
   */
  async authorize(ctx: RequestContext, query: AuthorizeQuery): Promise<string> {
    const principal = requirePrincipal(ctx);
    if (principal.kind !== 'user') throw new NotAllowedError('Only a user can authorise a client.');
    if (!query.client_id) throw new OAuthError('invalid_request', 'Missing parameter: client_id.');
    const client = await this.deps.store.repos.clients.findByClientId(query.client_id);
    if (!client || !clientServesTenant(client, principal.tenantId)) throw new OAuthError('invalid_client', 'Unknown client_id.');
    const redirectUri = query.redirect_uri ?? (client.redirectUris.length === 1 ? client.redirectUris[0] : undefined);
    if (!redirectUri) throw new OAuthError('invalid_request', 'Missing parameter: redirect_uri.');
    if (!redirectUriMatches(client.redirectUris, redirectUri)) throw new OAuthError('invalid_request', 'redirect_uri is not registered for this client.');
    if (query.response_type !== 'code') throw new OAuthError('unsupported_response_type', 'response_type must be "code".');
    requireGrant(client, 'authorization_code');
    let challenge: string | null = null;
    if (query.code_challenge !== undefined || query.code_challenge_method !== undefined) {
      if (query.code_challenge_method !== 'S256') throw new OAuthError('invalid_request', 'code_challenge_method must be S256.');
      if (!query.code_challenge || !isValidChallenge(query.code_challenge)) throw new OAuthError('invalid_request', 'code_challenge must be 43 base64url characters.');
      challenge = query.code_challenge;
    }
    const code = randomToken();
    const now = this.deps.clock.now();
    await this.deps.store.repos.tokens.insertAuthorizationCode({
      id: randomUUID(),
      codeHash: sha256Hex(code),
      tenantId: principal.tenantId,
      clientPk: client.id,
      userId: (principal.profile ?? principal.user).id,
      redirectUri,
      codeChallenge: challenge,
      codeChallengeMethod: challenge ? 'S256' : null,
      scope: SCOPE,
      createdAt: now,
      expiresAt: now + this.deps.authorizationCodeTtlSeconds * 1000,
      usedAt: null,
    });
    return appendQuery(redirectUri, { code, state: query.state });
  }

  /**
   * RFC 7009 revocation. A refresh token takes its whole family (and so its access tokens)
   * with it. Unknown tokens are not an error; another client's tokens are refused.
   */
  async revoke(form: TokenForm, credentials: ClientCredentials): Promise<void> {
    const client = await authenticateClient(this.deps.store.repos.clients, credentials);
    const token = form.token;
    if (!token) throw new OAuthError('invalid_request', 'Missing parameter: token.');
    const hash = sha256Hex(token);
    const now = this.deps.clock.now();
    const { tokens } = this.deps.store.repos;
    this.principals.clear();
    const refresh = await tokens.findRefreshToken(hash);
    if (refresh) {
      if (refresh.clientPk !== client.id) throw new OAuthError('unauthorized_client', 'The token was issued to another client.');
      await tokens.revokeFamily(refresh.familyId, now);
      return;
    }
    const access = await tokens.findAccessToken(hash);
    if (access) {
      if (access.clientPk !== client.id) throw new OAuthError('unauthorized_client', 'The token was issued to another client.');
      await tokens.revokeAccessToken(access.id, now);
    }
  }

  /** Resolves `Authorization: Bearer <token>` (and the User-Profile header) to a principal. */
  async authenticateBearer(token: string, profileHeader: string | undefined): Promise<Principal> {
    const hash = sha256Hex(token);
    const cacheKey = `${hash}\u0000${profileHeader ?? ''}`;
    const now = this.deps.clock.now();
    const cached = this.principals.get(cacheKey, now);
    if (cached) return cached;
    const { repos } = this.deps.store;
    const found = await repos.tokens.findAccessTokenWithOwner(hash);
    if (!found || found.token.revokedAt !== null || found.token.expiresAt <= now || !found.user.isActive) {
      throw new AuthenticationError('Invalid or expired token.', 'invalid_token');
    }
    const { user, client } = found;
    let profile = null;
    if (profileHeader) {
      const allowed = isUuid(profileHeader) && (await repos.users.profileIdsOf(user.id)).includes(profileHeader);
      profile = allowed ? await repos.users.findInTenant(user.tenantId, profileHeader) : null;
      if (!profile?.isActive) throw new NotAllowedError('You may not act as that profile.');
    }
    const actor = profile ?? user;
    const principal: Principal = {
      kind: 'user',
      tenantId: user.tenantId,
      user,
      profile,
      client,
      permissions: new Set(await repos.users.permissionsOf(actor.id)),
      isSuperuser: actor.isSuperuser,
    };
    this.principals.set(cacheKey, principal, found.token.expiresAt, now);
    return principal;
  }

  /** Forget resolved credentials: rights or tokens changed in this process. */
  invalidatePrincipals(): void {
    this.principals.clear();
  }

  /** Resolves an application principal from `client_id` (+ secret for confidential clients). */
  async authenticateApplication(clientId: string, secret: string | undefined): Promise<Principal> {
    // Keyed by a digest of the secret, never the secret: a wrong secret misses and is checked.
    const cacheKey = `app\u0000${clientId}\u0000${sha256Hex(secret ?? '')}`;
    const now = this.deps.clock.now();
    const cached = this.principals.get(cacheKey, now);
    if (cached) return cached;
    const { repos } = this.deps.store;
    const client = await repos.clients.findByClientId(clientId);
    const secretOk = client?.secretHash == null || (secret !== undefined && secret !== '' && (await verifySecret(secret, client.secretHash)));
    if (!client || client.tenantId === null || !secretOk) throw new AuthenticationError('Invalid client credentials.');
    const principal: Principal = { kind: 'application', tenantId: client.tenantId, client, permissions: new Set(await repos.clients.permissionsOf(client.id)), isSuperuser: false };
    this.principals.set(cacheKey, principal, Number.POSITIVE_INFINITY, now);
    return principal;
  }
}
