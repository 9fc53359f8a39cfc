import { randomUUID } from 'node:crypto';
import { sha256Hex, verifySecret } from '../../security/crypto.js';
import { OAuthError } from '../errors.js';
import type { OAuthClient, User } from '../model.js';
import { clientServesTenant, requireGrant } from './client-auth.js';
import { type TokenResponse, issueTokenPair } from './issue.js';
import { verifierMatches } from './pkce.js';
import type { OAuthDeps } from './deps.js';
import { throttledCheck } from './throttle.js';

export type TokenForm = Record<string, string>;

/** A failure decided inside a transaction whose writes (revocations) must still commit. */
class RejectAfterCommit {
  constructor(readonly error: OAuthError) {}
}

async function commitThenMaybeThrow<T>(work: Promise<T | RejectAfterCommit>): Promise<T> {
  const outcome = await work;
  if (outcome instanceof RejectAfterCommit) throw outcome.error;
  return outcome;
}

function required(form: TokenForm, name: string): string {
  const value = form[name];
  if (!value) throw new OAuthError('invalid_request', `Missing parameter: ${name}.`);
  return value;
}

const invalidGrant = (description: string) => new OAuthError('invalid_grant', description);

export async function passwordGrant(deps: OAuthDeps, client: OAuthClient, form: TokenForm, address: string): Promise<TokenResponse> {
  requireGrant(client, 'password');
  const username = required(form, 'username');
  const password = required(form, 'password');
  let found: User | null = null;
  // Reserved before the hash is computed, so parallel guesses cannot outrun the count.
  const passed = await throttledCheck(deps, { kind: 'user', identity: username, address }, async () => {
    const user = await deps.store.repos.users.findByUsername(username);
    // Unknown users cost a hash too, so response time does not reveal which usernames exist.
    const matches = await verifySecret(password, user?.passwordHash ?? (await deps.decoyHash()));
    found = matches && user?.isActive && clientServesTenant(client, user.tenantId) ? user : null;
    return found !== null;
  });
  const user = found as User | null;
  if (!passed || !user) throw invalidGrant('Invalid credentials given.');
  const { tenantId, id: userId } = user;
  const now = deps.clock.now();
  return deps.store.transaction((repos) =>
    issueTokenPair(repos, { ...deps.ttl, tenantId, clientPk: client.id, userId, familyId: randomUUID(), now }),
  );
}

/**
 * Refresh with rotation: each refresh token works once. Presenting a rotated one again means
 * it leaked (or a client is confused): the whole family is revoked (RFC 9700 §4.14.2).
 */
export async function refreshGrant(deps: OAuthDeps, client: OAuthClient, form: TokenForm): Promise<TokenResponse> {
  requireGrant(client, 'refresh_token');
  const presented = required(form, 'refresh_token');
  return commitThenMaybeThrow(
    deps.store.transaction(async (repos) => {
      const now = deps.clock.now();
      const record = await repos.tokens.findRefreshToken(sha256Hex(presented));
      if (!record || record.clientPk !== client.id) return new RejectAfterCommit(invalidGrant('Invalid refresh token.'));
      if (record.revokedAt !== null) return new RejectAfterCommit(invalidGrant('The refresh token has been revoked.'));
      if (record.expiresAt <= now) return new RejectAfterCommit(invalidGrant('The refresh token has expired.'));
      if (record.rotatedAt !== null || !(await repos.tokens.markRefreshRotated(record.id, now))) {
        await repos.tokens.revokeFamily(record.familyId, now);
        return new RejectAfterCommit(invalidGrant('The refresh token was already used; its tokens have been revoked.'));
      }
      const user = await repos.users.findInTenant(record.tenantId, record.userId);
      if (!user?.isActive) return new RejectAfterCommit(invalidGrant('The user is inactive.'));
      return issueTokenPair(repos, { ...deps.ttl, tenantId: record.tenantId, clientPk: client.id, userId: record.userId, familyId: record.familyId, now });
    }),
  );
}

/**
 * Authorization code exchange. Codes are single use: a replay revokes every token the code
 * issued. PKCE is enforced when the code was issued with a challenge, and a verifier sent for
 * a code issued without one is refused (downgrade, RFC 9700 §2.1.1).
 */
export async function authorizationCodeGrant(deps: OAuthDeps, client: OAuthClient, form: TokenForm): Promise<TokenResponse> {
  requireGrant(client, 'authorization_code');
  const code = required(form, 'code');
  const redirectUri = required(form, 'redirect_uri');
  const verifier = form.code_verifier;
  return commitThenMaybeThrow(
    deps.store.transaction(async (repos) => {
      const now = deps.clock.now();
      const record = await repos.tokens.findAuthorizationCode(sha256Hex(code));
      if (!record || record.clientPk !== client.id) return new RejectAfterCommit(invalidGrant('Invalid authorization code.'));
      if (record.usedAt !== null || !(await repos.tokens.markAuthorizationCodeUsed(record.id, now))) {
        await repos.tokens.revokeFamily(record.id, now);
        return new RejectAfterCommit(invalidGrant('The authorization code was already used; its tokens have been revoked.'));
      }
      if (record.expiresAt <= now) return new RejectAfterCommit(invalidGrant('The authorization code has expired.'));
      if (record.redirectUri !== redirectUri) return new RejectAfterCommit(invalidGrant('redirect_uri does not match the authorization request.'));
      if (record.codeChallenge !== null) {
        if (!verifier || !verifierMatches(verifier, record.codeChallenge)) return new RejectAfterCommit(invalidGrant('PKCE verification failed.'));
      } else if (verifier) {
        return new RejectAfterCommit(invalidGrant('code_verifier sent for a code issued without a code_challenge.'));
      }
      const user = await repos.users.findInTenant(record.tenantId, record.userId);
      if (!user?.isActive) return new RejectAfterCommit(invalidGrant('The user is inactive.'));
      // The code's id is the family id, so a replay finds and revokes what it issued.
      return issueTokenPair(repos, { ...deps.ttl, tenantId: record.tenantId, clientPk: client.id, userId: record.userId, familyId: record.id, now });
    }),
  );
}
