/**
 * Turns an unexpected HTTP answer into a `ClientFailure` a user can act on. Bodies follow the
 * service's error shape (`{status: {detail}}` plus field errors) or RFC 6749 (`error_description`).
 */
import { failure, type ClientFailure } from './errors.js';
import { bodyText, header, type TransportResponse } from './http.js';
import { safeText } from './safe-text.js';

/**
 * The server's explanation of an error, as one line of text without control characters: it is
 * printed on terminals and stored (outbox reasons), so a server cannot write escape sequences.
 */
export function describeErrorBody(response: TransportResponse): string | undefined {
  const described = describe(bodyText(response));
  return described === undefined ? undefined : safeText(described) || undefined;
}

function describe(text: string): string | undefined {
  try {
    const body = JSON.parse(text) as Record<string, any>;
    if (typeof body.error_description === 'string') return body.error_description;
    const detail = typeof body.status?.detail === 'string' ? body.status.detail : undefined;
    const fields = Object.entries(body)
      .filter(([key, value]) => key !== 'status' && Array.isArray(value))
      .flatMap(([key, value]) => (value as Array<{ message?: string; pointer?: string }>).map((e) => `${key}${e.pointer ? ` ${e.pointer}` : ''}: ${e.message ?? ''}`));
    return [detail, ...fields].filter(Boolean).join('; ') || undefined;
  } catch {
    return text.length > 0 && text.length < 300 ? text.trim() : undefined;
  }
}

/** A failure for a response the caller did not expect. `what` names the request ("the patrol types"). */
export function unexpectedResponse(response: TransportResponse, what: string, server: string): ClientFailure {
  const detail = describeErrorBody(response);
  const suffix = detail ? `: ${detail}` : '';
  switch (response.status) {
    case 401:
      return failure('auth', `the server refused the credentials while reading ${what}${suffix}`, 'log in again with `fieldops login` (or check FIELDOPS_TOKEN)');
    case 403:
      return failure('permission', `not allowed to read ${what}${suffix}`, 'ask an administrator of the server for the permission');
    case 404:
      return failure('server', `${server} does not offer ${what} (404)`, 'check the server URL (`fieldops status`); it may be an older server');
    case 429:
      return failure('server', `the server is rate limiting requests (429)${suffix}`, `wait ${header(response, 'retry-after') ?? 'a while'} seconds and try again`);
    default:
      if (response.status >= 500) {
        return failure('server', `${server} failed with HTTP ${response.status} while reading ${what}`, 'the server has a problem; try again later or tell its administrator');
      }
      return failure('server', `unexpected HTTP ${response.status} while reading ${what}${suffix}`, undefined);
  }
}

export function parseJsonBody<T>(response: TransportResponse, what: string): T {
  try {
    return JSON.parse(bodyText(response)) as T;
  } catch {
    throw failure('server', `the server sent ${what} that is not JSON`, 'check that the server URL points at a fieldops server');
  }
}
