/**
 * The one HTTP port of the client side: a function from a request to a fully read response.
 * Everything that talks to a server (sync, OAuth, replay) takes a `Transport`, so tests and the
 * benchmark can wrap it (count bytes, inject faults) and nothing reaches for a global `fetch`.
 *
 * Contract: the returned body is always read to the end (a 304 or an error body too), so the
 * connection goes back to the pool; network failures reject with `TransportError`.
 */
import { Agent, request as undiciRequest } from 'undici';
import { TransportError, type Transport, type TransportRequest, type TransportResponse } from './http.js';

export { TransportError, header, bodyText, type Transport, type TransportRequest, type TransportResponse } from './http.js';

export interface UndiciTransportOptions {
  /** Time allowed for the response headers, then for each gap in the body. */
  timeoutMs?: number;
}

/** A transport over one undici connection pool; `close()` ends its keep-alive sockets. */
export function createUndiciTransport(options: UndiciTransportOptions = {}): Transport & { close(): Promise<void> } {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const agent = new Agent({ headersTimeout: timeoutMs, bodyTimeout: timeoutMs, connectTimeout: Math.min(timeoutMs, 10_000) });
  const transport = async (request: TransportRequest): Promise<TransportResponse> => {
    try {
      const response = await undiciRequest(request.url, {
        method: request.method,
        headers: request.headers ?? {},
        body: request.body,
        dispatcher: agent,
      });
      const body = new Uint8Array(await response.body.arrayBuffer());
      return { status: response.statusCode, headers: flattenHeaders(response.headers), body };
    } catch (error) {
      throw toTransportError(error, request.url);
    }
  };
  return Object.assign(transport, { close: () => agent.close() });
}

function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

function toTransportError(error: unknown, url: string): TransportError {
  if (error instanceof TransportError) return error;
  const e = error as { code?: string; message?: string; cause?: { code?: string; message?: string }; errors?: Array<{ code?: string }> };
  // NOTE: a refused connection to `localhost` arrives as an AggregateError (IPv4 and IPv6 tried).
  const code = e.code ?? e.cause?.code ?? e.errors?.[0]?.code ?? 'ENETWORK';
  const detail = e.message || e.cause?.message || code;
  return new TransportError(`${describeCode(code)} (${detail})`, url, code);
}

function describeCode(code: string): string {
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'host name not found';
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      return 'connection reset';
    case 'UND_ERR_HEADERS_TIMEOUT':
    case 'UND_ERR_BODY_TIMEOUT':
    case 'UND_ERR_CONNECT_TIMEOUT':
    case 'ETIMEDOUT':
      return 'timed out';
    default:
      return 'network error';
  }
}
