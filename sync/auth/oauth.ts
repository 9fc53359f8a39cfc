/**
 * OAuth 2 for a public client (`fieldops-cli`) through oauth4webapi: RFC 8414 discovery, the
 * password grant, refresh (tokens rotate on every use) and RFC 7009 revocation. HTTP goes
 * through the injected transport (adapted to the `fetch` shape oauth4webapi expects).
 */
import * as oauth from 'oauth4webapi';
import { ClientFailure, failure } from '../errors.js';
import { header, type Transport } from '../http.js';
import { safeText } from '../safe-text.js';

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
    const answer = new Response(empty ? null : response.body, { status: response.status, headers: response.headers });
    // Said in failures ("from /wrong/oauth2/token/"): a constructed Response has no URL of its own.
    Object.defineProperty(answer, 'url', { value: String(input instanceof Request ? input.url : input) });
    return answer;
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
  let response: Response | undefined;
  try {
    response = await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...options(transport, server) });
    if (response.status === 404) return conventionalEndpoints(server);
    await refuseOtherIssuer(server, checkStatus(response));
    const metadata = await oauth.processDiscoveryResponse(issuer, response);
    if (!metadata.token_endpoint) return conventionalEndpoints(server);
    return { issuer: metadata.issuer, tokenEndpoint: metadata.token_endpoint, revocationEndpoint: metadata.revocation_endpoint ?? null };
  } catch (error) {
    if (error instanceof ClientFailure || (error as Error).name === 'TransportError') throw error;
    throw notAServer(server, response, error);
  }
}

/**
 * An answer no fieldops (or EarthRanger) server gives: the URL points at another web server, or
 * at a path of ours that is not the API's root. Said with what was seen (status, content type),
 * never with the OAuth library's wording.
 */
export function notAServer(server: string, response: Response | undefined, cause?: unknown): ClientFailure {
  const type = response?.headers.get('content-type')?.split(';')[0]?.trim();
  const seen = response ? ` (HTTP ${response.status}, ${type ? safeText(type).slice(0, 80) : 'no content type'} from ${new URL(response.url || server).pathname})` : '';
  return failure(
    'server',
    `the server at ${server} did not answer as a fieldops/EarthRanger server${seen}`,
    'check the server URL: it is the address the API is served at, such as https://host[:port], with no path after it unless the server is served under one',
    cause,
  );
}

/**
 * Metadata naming another address: the server runs behind a reverse proxy it does not know of
 * (it sees http and its own port), so every endpoint it names would be wrong.
 */
async function refuseOtherIssuer(server: string, response: Response): Promise<void> {
  if (response.status !== 200 || !isJson(response)) return;
  const named = await response.clone().json().then((body) => (body as { issuer?: unknown } | null)?.issuer, () => undefined);
  if (typeof named !== 'string' || !URL.canParse(named) || new URL(named).origin === new URL(server).origin) return;
  throw failure(
    'server',
    `the server at ${server} describes itself as ${safeText(named)} (its OAuth metadata)`,
    'if it is behind a reverse proxy, its administrator sets FIELDOPS_TRUST_PROXY=true on the server and has the proxy pass X-Forwarded-Proto and Host; otherwise log in to the address it names',
  );
}

const isJson = (response: Response) => /^application\/([\w.+-]+\+)?json\b/i.test(response.headers.get('content-type') ?? '');

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
    return oauth.processGenericTokenEndpointResponse(as, client, checkTokenAnswer(response, endpoints));
  });
}

export async function refreshGrant(endpoints: OAuthEndpoints, clientId: string, refreshToken: string, transport: Transport, now = Date.now): Promise<TokenSet> {
  const as = asOf(endpoints);
  const client = { client_id: clientId };
  return tokenCall('refresh', endpoints, now, async () => {
    const response = await oauth.refreshTokenGrantRequest(as, client, oauth.None(), refreshToken, options(transport, endpoints.tokenEndpoint));
    return oauth.processRefreshTokenResponse(as, client, checkTokenAnswer(response, endpoints));
  });
}

/** RFC 7009: the server answers 200 for unknown tokens too. A refresh token takes its access tokens with it. */
export async function revokeToken(endpoints: OAuthEndpoints, clientId: string, token: string, transport: Transport): Promise<void> {
  if (!endpoints.revocationEndpoint) throw failure('server', 'the server publishes no revocation endpoint', 'use `fieldops logout --local` to forget the tokens here');
  const as = asOf(endpoints);
  const response = await oauth.revocationRequest(as, { client_id: clientId }, oauth.None(), token, options(transport, endpoints.revocationEndpoint));
  try {
    // RFC 7009: 200 (any body) or an OAuth error in JSON; anything else is not our server.
    checkStatus(response);
    if (response.status !== 200 && !isJson(response)) throw notAServer(endpoints.issuer, response);
    await oauth.processRevocationResponse(response);
  } catch (error) {
    if (error instanceof ClientFailure) throw error;
    throw failure('server', `the server refused to revoke the token: ${(error as Error).message}`, 'use `fieldops logout --local` to forget the tokens here');
  }
}

/** A token endpoint answers 200 with JSON or an OAuth error (400, 401) in JSON; anything else is not one. */
function checkTokenAnswer(response: Response, endpoints: OAuthEndpoints): Response {
  checkStatus(response);
  if (![200, 400, 401].includes(response.status) || !isJson(response)) throw notAServer(endpoints.issuer, response);
  return response;
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
    // A JSON answer of the right status that is still not a token response (no access_token...).
    throw failure('server', `the server at ${endpoints.issuer} did not answer as a fieldops/EarthRanger server (its token endpoint ${endpoints.tokenEndpoint} sent no usable tokens)`, 'check the server URL', error);
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
