/**
 * A session: where to send requests and with which access token. Two sources:
 * - a profile of the credentials file: tokens are refreshed shortly before they expire and
 *   after a 401, and the rotated pair is saved at once (under the file's lock);
 * - `FIELDOPS_TOKEN` (CI): used as given, never refreshed, nothing saved.
 */
import { failure } from '../errors.js';
import type { Transport, TransportRequest } from '../http.js';
import type { CredentialsFile, StoredProfile } from './credentials-file.js';
import { refreshGrant } from './oauth.js';

/** Refresh when the access token has less than this left (or half its lifetime, if shorter). */
export const REFRESH_MARGIN_MS = 60_000;

export interface Session {
  server: string;
  /** null with FIELDOPS_TOKEN. */
  profile: string | null;
  username: string | null;
  /** The user's id on the server, when the profile saved it (null with FIELDOPS_TOKEN). */
  userId: string | null;
  source: 'profile' | 'token';
  accessToken(): Promise<string>;
  /** After a 401 with `used`: a new token, or null when none can be had. */
  renew(used: string): Promise<string | null>;
}

export function tokenSession(server: string, token: string): Session {
  return { server, profile: null, username: null, userId: null, source: 'token', accessToken: async () => token, renew: async () => null };
}

export interface ProfileSessionOptions {
  file: CredentialsFile;
  name: string;
  transport: Transport;
  now?: () => number;
  onRefresh?: () => void;
}

export async function profileSession(options: ProfileSessionOptions): Promise<Session> {
  const { file, name, transport } = options;
  const now = options.now ?? Date.now;
  const saved = await file.profile(name);
  if (!saved) {
    throw failure('auth', `not logged in (profile "${name}")`, `run \`fieldops login${name === 'default' ? '' : ` --profile ${name}`} --server <URL>\`, or set FIELDOPS_TOKEN`);
  }
  const start = saved;
  let current: StoredProfile = saved;
  let refreshing: Promise<string | null> | null = null;

  const expiring = (p: StoredProfile) => p.expiresAt - now() < REFRESH_MARGIN_MS;

  // One refresh at a time in this process; the file lock covers other processes. Under the
  // lock, the stored profile is read again: another process may have refreshed already.
  const refresh = (used: string): Promise<string | null> =>
    (refreshing ??= file
      .update(async (data) => {
        const stored = data.profiles[name];
        if (!stored) throw failure('auth', `profile "${name}" was logged out meanwhile`, 'log in again with `fieldops login`');
        if (stored.accessToken !== used && !expiring(stored)) return (current = stored).accessToken;
        if (!stored.refreshToken) return null;
        const endpoints = { issuer: stored.server, tokenEndpoint: stored.tokenEndpoint, revocationEndpoint: stored.revocationEndpoint };
        const tokens = await refreshGrant(endpoints, stored.clientId, stored.refreshToken, transport, now);
        const next: StoredProfile = { ...stored, ...tokens, refreshToken: tokens.refreshToken ?? stored.refreshToken };
        data.profiles[name] = next;
        current = next;
        options.onRefresh?.();
        return next.accessToken;
      })
      .finally(() => (refreshing = null)));

  return {
    server: start.server,
    profile: name,
    username: start.username,
    userId: start.userId ?? null,
    source: 'profile',
    async accessToken() {
      if (!expiring(current)) return current.accessToken;
      return (await refresh(current.accessToken)) ?? current.accessToken;
    },
    renew: (used) => refresh(used),
  };
}

/**
 * Adds the bearer token to requests for the session's server (never to other origins) and,
 * on a 401, renews the token once and repeats the request.
 */
export function authorizedTransport(transport: Transport, session: Session): Transport {
  const origin = new URL(session.server).origin;
  return async (request: TransportRequest) => {
    if (new URL(request.url).origin !== origin) return transport(request);
    const send = (token: string) => transport({ ...request, headers: { ...request.headers, authorization: `Bearer ${token}` } });
    const token = await session.accessToken();
    const response = await send(token);
    if (response.status !== 401) return response;
    const renewed = await session.renew(token);
    return renewed ? send(renewed) : response;
  };
}
