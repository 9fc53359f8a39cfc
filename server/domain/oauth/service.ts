import { randomUUID } from 'node:crypto';
import type { Clock } from '../../db/time.js';
import { type SecretVerifier, hashSecret, randomToken, sha256Hex } from '../../security/crypto.js';
import type { ThrottleConfig } from '../../config.js';
import { type Principal, type RequestContext, requirePrincipal } from '../context.js';
import { AuthenticationError, NotAllowedError, OAuthError } from '../errors.js';
import { isUuid } from '../ids.js';
import type { Store } from '../ports.js';
import { type ClientCredentials, authenticateClient, clientServesTenant, requireGrant } from './client-auth.js';
import { ApplicationAuthenticator } from './application-auth.js';
import type { OAuthDeps, OAuthMetrics } from './deps.js';
import { type TokenForm, authorizationCodeGrant, passwordGrant, refreshGrant } from './grants.js';
import { SCOPE, type TokenResponse } from './issue.js';
import { isValidChallenge } from './pkce.js';
import { appendQuery, redirectUriMatches } from './redirect-uri.js';
import { CredentialThrottle } from './throttle.js';
import type { PrincipalCache } from './principal-cache.js';

export interface OAuthServiceOptions {
  store: Store;
  clock: Clock;
  accessTokenTtlSeconds: number;
  refreshTokenTtlSeconds: number;
  authorizationCodeTtlSeconds: number;
  passwordHashCost: number;
  throttle: ThrottleConfig;
  /** scrypt through the bounded gate, for every password and client secret checked. */
  secrets: SecretVerifier;
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
  private readonly applications: ApplicationAuthenticator;

  constructor(options: OAuthServiceOptions) {
    this.principals = options.principals;
    this.metrics = options.metrics ?? { tokenIssued: () => undefined };
    this.deps = {
      store: options.store,
      clock: options.clock,
      throttle: new CredentialThrottle(options.store.repos.throttle, options.throttle, options.clock),
      secrets: options.secrets,
      ttl: { accessTtlSeconds: options.accessTokenTtlSeconds, refreshTtlSeconds: options.refreshTokenTtlSeconds },
      authorizationCodeTtlSeconds: options.authorizationCodeTtlSeconds,
      // NOTE: not through the gate: it is computed once, inside a login that holds a gate slot.
      decoyHash: () => (this.decoy ??= hashSecret(randomToken(), options.passwordHashCost)),
    };
    this.applications = new ApplicationAuthenticator(this.deps, this.principals);
  }

  /**
   * The token endpoint. `request.profile` is the User-Profile header, which is refused: a
   * profile acts only inside its parent's session (CONTRACT §2) and never gets a token family
   * of its own.
   */
  async token(form: TokenForm, credentials: ClientCredentials, request: { address: string; profile?: string }): Promise<TokenResponse> {
    refuseProfile(request.profile, 'token');
    const grantType = form.grant_type;
    if (!grantType) throw new OAuthError('invalid_request', 'Missing parameter: grant_type.');
    const client = await authenticateClient(this.clientAuth(), credentials, request.address);
    let issued: TokenResponse;
    switch (grantType) {
      case 'password':
        issued = await passwordGrant(this.deps, client, form, request.address);
        break;
      case 'refresh_token':
        // A refresh or code grant may revoke a family (reuse, replay): forget resolved tokens
        // once the revocation is written, whatever the outcome.
        issued = await refreshGrant(this.deps, client, form).finally(() => this.principals.clear());
        break;
      case 'authorization_code':
        issued = await authorizationCodeGrant(this.deps, client, form).finally(() => this.principals.clear());
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
    refuseProfile(principal.profile ? principal.profile.id : undefined, 'authorize');
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
      userId: principal.user.id,
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
  async revoke(form: TokenForm, credentials: ClientCredentials, address: string): Promise<void> {
    const client = await authenticateClient(this.clientAuth(), credentials, address);
    const token = form.token;
    if (!token) throw new OAuthError('invalid_request', 'Missing parameter: token.');
    const hash = sha256Hex(token);
    const now = this.deps.clock.now();
    const { tokens } = this.deps.store.repos;
    // The cache is cleared AFTER the revocation is written: cleared before, a request resolving
    // the token in between would re-cache it as valid (and PrincipalCache refuses entries
    // loaded before the clear, for requests whose read began before the write).
    const refresh = await tokens.findRefreshToken(hash);
    if (refresh) {
      if (refresh.clientPk !== client.id) throw new OAuthError('unauthorized_client', 'The token was issued to another client.');
      await tokens.revokeFamily(refresh.familyId, now);
      this.principals.clear();
      return;
    }
    const access = await tokens.findAccessToken(hash);
    if (access) {
      if (access.clientPk !== client.id) throw new OAuthError('unauthorized_client', 'The token was issued to another client.');
      await tokens.revokeAccessToken(access.id, now);
      this.principals.clear();
    }
  }

  /** Resolves `Authorization: Bearer <token>` (and the User-Profile header) to a principal. */
  async authenticateBearer(token: string, profileHeader: string | undefined): Promise<Principal> {
    const hash = sha256Hex(token);
    const cacheKey = `${hash}\u0000${profileHeader ?? ''}`;
    const now = this.deps.clock.now();
    const cached = this.principals.get(cacheKey, now);
    if (cached) return cached;
    const loadedAt = this.principals.generation();
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
    this.principals.set(cacheKey, principal, found.token.expiresAt, now, loadedAt);
    return principal;
  }

  /** Forget resolved credentials: rights or tokens changed in this process. */
  invalidatePrincipals(): void {
    this.principals.clear();
  }

  /**
   * Resolves an application principal from `client_id` (+ secret for confidential clients);
   * see ApplicationAuthenticator.
   */
  authenticateApplication(clientId: string, secret: string | undefined, address: string): Promise<Principal> {
    return this.applications.authenticate(clientId, secret, address);
  }

  private clientAuth() {
    return { clients: this.deps.store.repos.clients, throttle: this.deps.throttle, secrets: this.deps.secrets };
  }
}

/** A profile acts only inside its parent's session: no code, no token family of its own. */
function refuseProfile(profile: string | undefined, endpoint: 'token' | 'authorize'): void {
  if (profile !== undefined && profile !== '') {
    throw new OAuthError('invalid_request', `The User-Profile header is not accepted at the ${endpoint} endpoint: a profile acts only inside its parent's session; send User-Profile with the parent's access token on API requests instead.`);
  }
}
