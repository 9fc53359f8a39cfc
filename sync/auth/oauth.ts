/**
 * OAuth 2 for a public client (`fieldops-cli`) through oauth4webapi: RFC 8414 discovery, the
 * password grant, refresh (tokens rotate on every use) and RFC 7009 revocation. HTTP goes
 * through the injected transport (adapted to the `fetch` shape oauth4webapi expects).
 */
import * as oauth from 'oauth4webapi';
import { ClientFailure, failure } from '../errors.js';
import { header, type Transport } from '../http.js';

export interface OAuthEndpoints {
  issuer: string;
  tokenEndpoint: string;
  revocationEndpoint: string | null;
}

export interface TokenSet {
  accessToken: string;
  refreshToken: string | null;
  /** Epoch milliseconds. */
  expiresAt: number;
  tokenType: string;
}

export const DEFAULT_CLIENT_ID = 'fieldops-cli';

/** oauth4webapi's `customFetch` over our transport. */
export function fetchOver(transport: Transport): typeof fetch {
  return (async (input: string | URL | Request, init: RequestInit = {}) => {
    const body = init.body === undefined || init.body === null ? undefined : typeof init.body === 'string' ? init.body : String(init.body);
    const response = await transport({
      method: (init.method ?? 'GET') as 'GET',
      url: String(input instanceof Request ? input.url : input),
      headers: Object.fromEntries(new Headers(init.headers).entries()),
      body,
    });
    const empty = response.status === 204 || response.status === 304 || response.body.byteLength === 0;
    return new Response(empty ? null : response.body, { status: response.status, headers: response.headers });
  }) as typeof fetch;
}

function options(transport: Transport, url: string) {
  // Plain http is refused by oauth4webapi unless allowed: allowed for the URL the user typed
  // (the login command warns when that is not a loopback address).
  return { [oauth.customFetch]: fetchOver(transport), [oauth.allowInsecureRequests]: url.startsWith('http:') };
}

/** Endpoints from the server's metadata; the conventional paths when it publishes none. */
export async function discoverEndpoints(server: string, transport: Transport): Promise<OAuthEndpoints> {
  const issuer = new URL(server);
  try {
    const response = await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...options(transport, server) });
    if (response.status === 404) return conventionalEndpoints(server);
    const metadata = await oauth.processDiscoveryResponse(issuer, response);
    if (!metadata.token_endpoint) return conventionalEndpoints(server);
    return { issuer: metadata.issuer, tokenEndpoint: metadata.token_endpoint, revocationEndpoint: metadata.revocation_endpoint ?? null };
  } catch (error) {
    if (error instanceof ClientFailure || (error as Error).name === 'TransportError') throw error;
    throw failure('server', `${server} does not look like a fieldops server (its OAuth metadata is unreadable: ${(error as Error).message})`, 'check the --server URL');
  }
}

export function conventionalEndpoints(server: string): OAuthEndpoints {
  const base = server.replace(/\/+$/, '');
  return { issuer: base, tokenEndpoint: `${base}/oauth2/token/`, revocationEndpoint: `${base}/oauth2/revoke_token/` };
}

const asOf = (e: OAuthEndpoints): oauth.AuthorizationServer => ({
  issuer: e.issuer,
  token_endpoint: e.tokenEndpoint,
  ...(e.revocationEndpoint ? { revocation_endpoint: e.revocationEndpoint } : {}),
});

export async function passwordGrant(endpoints: OAuthEndpoints, clientId: string, username: string, password: string, transport: Transport, now = Date.now): Promise<TokenSet> {
  const as = asOf(endpoints);
  const client = { client_id: clientId };
  return tokenCall('login', endpoints, now, async () => {
    const response = await oauth.genericTokenEndpointRequest(as, client, oauth.None(), 'password', { username, password }, options(transport, endpoints.tokenEndpoint));
    return oauth.processGenericTokenEndpointResponse(as, client, checkStatus(response));
  });
}

export async function refreshGrant(endpoints: OAuthEndpoints, clientId: string, refreshToken: string, transport: Transport, now = Date.now): Promise<TokenSet> {
  const as = asOf(endpoints);
  const client = { client_id: clientId };
  return tokenCall('refresh', endpoints, now, async () => {
    const response = await oauth.refreshTokenGrantRequest(as, client, oauth.None(), refreshToken, options(transport, endpoints.tokenEndpoint));
    return oauth.processRefreshTokenResponse(as, client, checkStatus(response));
  });
}

/** RFC 7009: the server answers 200 for unknown tokens too. A refresh token takes its access tokens with it. */
export async function revokeToken(endpoints: OAuthEndpoints, clientId: string, token: string, transport: Transport): Promise<void> {
  if (!endpoints.revocationEndpoint) throw failure('server', 'the server publishes no revocation endpoint', 'use `fieldops logout --local` to forget the tokens here');
  const as = asOf(endpoints);
  const response = await oauth.revocationRequest(as, { client_id: clientId }, oauth.None(), token, options(transport, endpoints.revocationEndpoint));
  try {
    await oauth.processRevocationResponse(checkStatus(response));
  } catch (error) {
    if (error instanceof ClientFailure) throw error;
    throw failure('server', `the server refused to revoke the token: ${(error as Error).message}`, 'use `fieldops logout --local` to forget the tokens here');
  }
}

/** Answers oauth4webapi would report obscurely: throttling and server errors. */
function checkStatus(response: Response): Response {
  if (response.status === 429) {
    const wait = header({ status: 429, headers: Object.fromEntries(response.headers.entries()), body: new Uint8Array() }, 'retry-after');
    throw failure('auth', 'too many failed logins: the server is refusing attempts for now', `wait ${wait ?? 'a few'} seconds before trying again`);
  }
  if (response.status >= 500) throw failure('server', `the server failed with HTTP ${response.status}`, 'try again later or tell its administrator');
  return response;
}

async function tokenCall(kind: 'login' | 'refresh', endpoints: OAuthEndpoints, now: () => number, call: () => Promise<oauth.TokenEndpointResponse>): Promise<TokenSet> {
  let result: oauth.TokenEndpointResponse;
  try {
    result = await call();
  } catch (error) {
    if (error instanceof ClientFailure || (error as Error).name === 'TransportError') throw error;
    if (error instanceof oauth.ResponseBodyError) throw oauthFailure(kind, error);
    throw failure('server', `unexpected answer from ${endpoints.tokenEndpoint}: ${(error as Error).message}`, 'check the server URL');
  }
  return {
    accessToken: result.access_token,
    refreshToken: result.refresh_token ?? null,
    expiresAt: now() + (result.expires_in ?? 3600) * 1000,
    tokenType: result.token_type,
  };
}

function oauthFailure(kind: 'login' | 'refresh', error: oauth.ResponseBodyError): ClientFailure {
  const detail = error.error_description ? ` (${error.error_description})` : '';
  if (error.error === 'invalid_grant') {
    return kind === 'login'
      ? failure('auth', `login refused: wrong username or password${detail}`, 'check both; repeated failures are throttled for 15 minutes')
      : failure('auth', `the saved session has expired or was revoked${detail}`, 'log in again with `fieldops login`');
  }
  if (error.error === 'invalid_client' || error.error === 'unauthorized_client') {
    return failure('auth', `the server does not accept the OAuth client${detail}`, 'ask its administrator to create the public client `fieldops-cli` with the password and refresh_token grants');
  }
  return failure('auth', `OAuth error ${error.error}${detail}`, kind === 'refresh' ? 'log in again with `fieldops login`' : undefined);
}
