/**
 * The one HTTP port of the client side: a function from a request to a fully read response.
 * Everything that talks to a server (sync, OAuth, replay) takes a `Transport`, so tests and the
 * benchmark can wrap it (count bytes, inject faults) and nothing reaches for a global `fetch`.
 *
 * Contract: the returned body is always read to the end (a 304 or an error body too), so the
 * connection goes back to the pool; network failures reject with `TransportError`.
 */
import { Agent, request as undiciRequest } from 'undici';
import { TransportError, isTlsCode, type Transport, type TransportRequest, type TransportResponse } from './http.js';

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
        signal: request.signal,
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
  const e = error as { name?: string; code?: string; message?: string; cause?: { code?: string; message?: string }; errors?: Array<{ code?: string }> };
  if (e.name === 'AbortError' || e.code === 'UND_ERR_ABORTED') return new TransportError('abandoned (interrupted)', url, 'ABORTED');
  // NOTE: a refused connection to `localhost` arrives as an AggregateError (IPv4 and IPv6 tried).
  const code = e.code ?? e.cause?.code ?? e.errors?.[0]?.code ?? 'ENETWORK';
  // TLS failures carry OpenSSL's text (error queues, C source paths): words of our own instead.
  if (isTlsCode(code)) {
    const tls = describeTls(code, url);
    return new TransportError(`${tls.message} (${code})`, url, code, tls.hint);
  }
  const detail = e.message || e.cause?.message || code;
  return new TransportError(`${describeCode(code)} (${detail})`, url, code);
}

function describeTls(code: string, url: string): { message: string; hint: string } {
  const { host, hostname } = new URL(url);
  const plain = `http://${host}`;
  const trust = 'if the server uses a certificate of your organisation\'s own authority, point NODE_EXTRA_CA_CERTS at that authority\'s certificate (PEM)';
  if (/WRONG_VERSION_NUMBER|PACKET_LENGTH_TOO_LONG|HTTP_REQUEST/.test(code)) {
    return { message: 'the TLS handshake failed: the server did not answer in TLS (is it a plain http server?)', hint: `if the server has no TLS, give its URL as ${plain}; otherwise check the port` };
  }
  if (code === 'CERT_HAS_EXPIRED') return { message: 'the server\'s TLS certificate has expired', hint: 'tell the server\'s administrator; if this computer\'s clock is wrong, correct it' };
  if (code === 'CERT_NOT_YET_VALID') return { message: 'the server\'s TLS certificate is not valid yet', hint: 'check this computer\'s date and time' };
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID' || code === 'HOSTNAME_MISMATCH') {
    return { message: `the server's TLS certificate is not for ${hostname}`, hint: 'use the host name the certificate is for (as the server\'s administrator gives it)' };
  }
  if (/SELF_SIGNED|UNABLE_TO_|UNTRUSTED|_SIGNATURE$/.test(code)) {
    return { message: 'the server\'s TLS certificate is not trusted (self-signed, or from an unknown authority)', hint: trust };
  }
  return { message: 'the TLS handshake with the server failed', hint: `check the URL's scheme and port (${plain} for a server without TLS); ${trust}` };
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
