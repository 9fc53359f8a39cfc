/**
 * Login and logout as plain functions over the transport and the credentials file. The
 * password is only ever passed to the token endpoint; nothing stores it.
 */
import { ClientFailure, failure } from '../errors.js';
import { parseJsonBody, unexpectedResponse } from '../http-errors.js';
import type { Transport } from '../http.js';
import type { CredentialsFile, StoredProfile } from './credentials-file.js';
import { DEFAULT_CLIENT_ID, discoverEndpoints, passwordGrant, revokeToken, type OAuthEndpoints } from './oauth.js';

export interface Me {
  id: string;
  username: string;
  name: string;
  email: string;
  created_at: string;
}

export async function fetchMe(transport: Transport, server: string, token?: string): Promise<Me> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  const response = await transport({ method: 'GET', url: `${server}/users/me`, headers });
  if (response.status !== 200) throw unexpectedResponse(response, 'your user', server);
  const body = parseJsonBody<{ data?: Me }>(response, 'your user');
  if (!body.data || typeof body.data.username !== 'string') throw failure('server', 'the server answered /users/me without a user', 'check the server URL');
  return body.data;
}

export interface LoginInput {
  file: CredentialsFile;
  profile: string;
  server: string;
  username: string;
  password: string;
  transport: Transport;
  clientId?: string;
  now?: () => number;
}

export async function login(input: LoginInput): Promise<{ profile: StoredProfile; me: Me; replacedSession: boolean }> {
  const now = input.now ?? Date.now;
  const clientId = input.clientId ?? DEFAULT_CLIENT_ID;
  const endpoints = await discoverEndpoints(input.server, input.transport);
  const tokens = await passwordGrant(endpoints, clientId, input.username, input.password, input.transport, now);
  let me: Me;
  let profile: StoredProfile;
  let previous: StoredProfile | undefined;
  try {
    me = await fetchMe(input.transport, input.server, tokens.accessToken);
    profile = {
      server: input.server,
      username: me.username,
      userId: typeof me.id === 'string' ? me.id : null,
      clientId,
      tokenEndpoint: endpoints.tokenEndpoint,
      revocationEndpoint: endpoints.revocationEndpoint,
      ...tokens,
      loggedInAt: new Date(now()).toISOString(),
    };
    previous = await input.file.update((data) => {
      const old = data.profiles[input.profile];
      data.profiles[input.profile] = profile;
      return old;
    });
  } catch (error) {
    // Tokens the server issued but that were not saved (an unwritable folder, an odd /users/me)
    // would stay valid with nobody holding them: revoked, as logout does, before failing.
    throw await withRevocation(error, () => revokeTokens(endpoints, clientId, tokens, input.transport));
  }
  // The session this one replaces should not stay valid on the server; best effort only.
  if (previous?.refreshToken) {
    await revokeToken(endpointsOf(previous), previous.clientId, previous.refreshToken, input.transport).catch(() => {});
  }
  return { profile, me, replacedSession: Boolean(previous) };
}

/** The refresh token takes its access tokens with it; the access token is revoked as well for servers that do not do that. */
async function revokeTokens(endpoints: OAuthEndpoints, clientId: string, tokens: { accessToken: string; refreshToken: string | null }, transport: Transport): Promise<void> {
  if (tokens.refreshToken) await revokeToken(endpoints, clientId, tokens.refreshToken, transport);
  await revokeToken(endpoints, clientId, tokens.accessToken, transport);
}

/** The failure of a login whose new tokens were then revoked: its hint says whether that worked. */
async function withRevocation(error: unknown, revoke: () => Promise<void>): Promise<unknown> {
  let outcome: string;
  try {
    await revoke();
    outcome = 'the tokens the server had just issued were revoked there; log in again once this is fixed';
  } catch {
    outcome = 'the tokens the server had just issued could not be revoked there (they expire on their own); log in again once this is fixed';
  }
  if (!(error instanceof ClientFailure)) return error;
  return new ClientFailure(error.message, error.hint ? `${error.hint}; ${outcome}` : outcome, error.kind, { cause: error.cause ?? error });
}

export const endpointsOf = (p: StoredProfile): OAuthEndpoints => ({ issuer: p.server, tokenEndpoint: p.tokenEndpoint, revocationEndpoint: p.revocationEndpoint });

/**
 * Revokes the profile's tokens at the server, then forgets them. When the server cannot be
 * told, the tokens are kept (so logout can be retried) unless `local` says to forget anyway.
 */
export async function logout(input: { file: CredentialsFile; profile: string; transport: Transport; local: boolean }): Promise<{ server: string; revoked: boolean } | null> {
  const stored = await input.file.profile(input.profile);
  if (!stored) return null;
  let revoked = false;
  if (!input.local) {
    // The refresh token takes its access tokens with it; the access token is revoked as well
    // for servers that do not do that.
    if (stored.refreshToken) await revokeToken(endpointsOf(stored), stored.clientId, stored.refreshToken, input.transport);
    await revokeToken(endpointsOf(stored), stored.clientId, stored.accessToken, input.transport);
    revoked = true;
  }
  await input.file.update((data) => {
    delete data.profiles[input.profile];
  });
  return { server: stored.server, revoked };
}
