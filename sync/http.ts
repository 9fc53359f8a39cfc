/**
 * The transport port's types and its error, without any HTTP client behind them: imported by
 * everything that speaks HTTP, loaded cheaply (undici is only loaded by transport.ts).
 *
 * Contract of a `Transport`: the returned body is always read to the end (a 304 or an error
 * body too), so the connection goes back to the pool; network failures reject with
 * `TransportError`.
 */
export interface TransportRequest {
  /** HEAD and OPTIONS: the tus upload client (sync/push/uploads.ts). */
  method: 'GET' | 'HEAD' | 'OPTIONS' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  url: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** Abandons the request (Ctrl-C): it then rejects with a `TransportError` coded `ABORTED`. */
  signal?: AbortSignal;
  /**
   * Stops the request from being tried again (the first Ctrl-C): the attempt in flight may
   * finish, but no retry starts (sync/retry.ts); a retry not made rejects coded `ABORTED`.
   */
  stop?: AbortSignal;
  /**
   * The server treats a repeat of this request as a duplicate (the sensor intake de-duplicates
   * by source and `recorded_at`), so a retry after an ambiguous failure is safe (sync/retry.ts).
   * A request with an `idempotency-key` header is repeatable without saying so.
   */
  repeatable?: boolean;
}

/** The header that makes a record write safe to repeat (docs/sync.md "Idempotent writes"). */
export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';

/** Whether a retry of the request after an ambiguous failure cannot write twice. */
export function safeToRepeat(request: TransportRequest): boolean {
  if (request.method === 'GET' || request.repeatable === true) return true;
  return Object.keys(request.headers ?? {}).some((name) => name.toLowerCase() === IDEMPOTENCY_KEY_HEADER);
}

export interface TransportResponse {
  status: number;
  /** Lower-case header names; repeated headers joined with `, `. */
  headers: Record<string, string>;
  body: Uint8Array;
}

export type Transport = (request: TransportRequest) => Promise<TransportResponse>;

/** The request never got an HTTP answer: refused, reset, timed out, DNS failure, TLS failure. */
export class TransportError extends Error {
  constructor(
    message: string,
    readonly url: string,
    /** The system, undici or TLS code (`ECONNREFUSED`, `UND_ERR_HEADERS_TIMEOUT`, `CERT_HAS_EXPIRED`...). */
    readonly code: string,
    /** What the user can do, when the code says more than "check the network" (TLS failures). */
    readonly hint?: string,
  ) {
    super(message);
    this.name = 'TransportError';
  }

  /** True when the server cannot have seen the request (safe to retry even a non-idempotent one). */
  get notSent(): boolean {
    return this.code === 'ECONNREFUSED' || this.code === 'ENOTFOUND' || this.code === 'EAI_AGAIN' || isTlsCode(this.code);
  }

  /** Failures a retry cannot cure (a certificate, a TLS handshake, an abandoned request). */
  get permanent(): boolean {
    return isTlsCode(this.code) || this.code === 'ABORTED';
  }
}

/** Codes of TLS handshake and certificate failures (Node's and OpenSSL's). */
export function isTlsCode(code: string): boolean {
  return /^(ERR_SSL_|ERR_TLS_|EPROTO$)|CERT|_SIGNATURE$|^UNABLE_TO_|^HOSTNAME_MISMATCH$/.test(code);
}

/** Case-insensitive header read. */
export function header(response: TransportResponse, name: string): string | undefined {
  return response.headers[name.toLowerCase()];
}

export function bodyText(response: TransportResponse): string {
  return new TextDecoder().decode(response.body);
}
