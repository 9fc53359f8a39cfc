/**
 * Bounded retries with exponential backoff, as a transport decorator. Retried: network failures
 * (not TLS failures, nor a request abandoned through its signal) and 5xx/429 answers. Requests that change state are retried only when the caller says they
 * are safe to repeat (the sensor endpoints de-duplicate) or when the request cannot have reached
 * the server (connection refused); an OAuth refresh must never be sent twice, since reusing a
 * rotated refresh token revokes the whole token family.
 */
import { TransportError, header, type Transport, type TransportRequest, type TransportResponse } from './http.js';

export interface RetryPolicy {
  /** Total tries, the first included (>= 1). */
  attempts: number;
  /** Delay before the first retry; doubled each time, with jitter, up to `maxDelayMs`. */
  baseDelayMs: number;
  maxDelayMs?: number;
  /** Whether POST/PUT/PATCH/DELETE may be repeated after an ambiguous failure. */
  retryUnsafe?: boolean;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  onRetry?: (info: { attempt: number; delayMs: number; reason: string; url: string }) => void;
}

const RETRY_STATUSES = new Set([429, 500, 502, 503, 504]);

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function withRetries(transport: Transport, policy: RetryPolicy): Transport {
  const attempts = Math.max(1, policy.attempts);
  const maxDelay = policy.maxDelayMs ?? 10_000;
  const wait = policy.sleep ?? sleep;
  const random = policy.random ?? Math.random;
  return async (request: TransportRequest): Promise<TransportResponse> => {
    const safe = request.method === 'GET' || policy.retryUnsafe === true;
    for (let attempt = 1; ; attempt++) {
      let reason: string;
      let retryAfterMs: number | undefined;
      try {
        const response = await transport(request);
        if (!RETRY_STATUSES.has(response.status) || attempt >= attempts || !safe) return response;
        reason = `HTTP ${response.status}`;
        retryAfterMs = parseRetryAfter(header(response, 'retry-after'));
      } catch (error) {
        if (!(error instanceof TransportError) || error.permanent || attempt >= attempts || !(safe || error.notSent)) throw error;
        reason = error.message;
      }
      const backoff = Math.min(maxDelay, policy.baseDelayMs * 2 ** (attempt - 1));
      // Full jitter on the upper half: spreads retries of many clients without ever waiting 0.
      const delayMs = Math.round(Math.min(maxDelay * 3, retryAfterMs ?? backoff * (0.5 + random() / 2)));
      if (request.signal?.aborted) throw new TransportError('abandoned (interrupted)', request.url, 'ABORTED');
      policy.onRetry?.({ attempt, delayMs, reason, url: request.url });
      await wait(delayMs);
    }
  };
}

/** `Retry-After` in seconds or as an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
