/**
 * Bounded retries with exponential backoff, as a transport decorator. Retried: network failures
 * (not TLS failures, nor a request abandoned through its signal), 5xx answers, and 429 answers
 * that carry Retry-After (waited as told). A 429 without Retry-After says the request can never
 * fit (the batched push's too many entries): it is returned at once, for the caller to split. Requests
 * that change state are retried only when a repeat cannot write twice (`safeToRepeat`: the
 * request carries an Idempotency-Key, or says it is `repeatable`, as the de-duplicating sensor
 * posts do), when the policy says so for every request (`retryUnsafe`: a sensor replay), or
 * when the request cannot have reached the server (connection refused); an OAuth refresh must
 * never be sent twice, since reusing a rotated refresh token revokes the whole token family.
 *
 * Interruption: a request's `stop` (the first Ctrl-C) lets the attempt in flight finish but
 * starts no retry, and its `signal` (the second) abandons the attempt in flight; either one cuts
 * a backoff under way short. A retry not made rejects ABORTED, like an abandoned request.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { TransportError, header, safeToRepeat, type Transport, type TransportRequest, type TransportResponse } from './http.js';

export interface RetryPolicy {
  /** Total tries, the first included (>= 1). */
  attempts: number;
  /** Delay before the first retry; doubled each time, with jitter, up to `maxDelayMs`. */
  baseDelayMs: number;
  maxDelayMs?: number;
  /** Whether every POST/PUT/PATCH/DELETE may be repeated after an ambiguous failure (not only `safeToRepeat` ones). */
  retryUnsafe?: boolean;
  /** Waits `ms`; rejects (or resolves early) when `signal` fires. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  random?: () => number;
  onRetry?: (info: { attempt: number; delayMs: number; reason: string; url: string }) => void;
}

const RETRY_STATUSES = new Set([429, 500, 502, 503, 504]);

export const sleep = (ms: number, signal?: AbortSignal) => delay(ms, undefined, { signal });

export function withRetries(transport: Transport, policy: RetryPolicy): Transport {
  const attempts = Math.max(1, policy.attempts);
  const maxDelay = policy.maxDelayMs ?? 10_000;
  const wait = policy.sleep ?? sleep;
  const random = policy.random ?? Math.random;
  return async (request: TransportRequest): Promise<TransportResponse> => {
    const safe = safeToRepeat(request) || policy.retryUnsafe === true;
    for (let attempt = 1; ; attempt++) {
      let reason: string;
      let retryAfterMs: number | undefined;
      try {
        const response = await transport(request);
        if (!RETRY_STATUSES.has(response.status) || attempt >= attempts || !safe) return response;
        retryAfterMs = parseRetryAfter(header(response, 'retry-after'));
        if (response.status === 429 && retryAfterMs === undefined) return response;
        reason = `HTTP ${response.status}`;
      } catch (error) {
        if (!(error instanceof TransportError) || error.permanent || attempt >= attempts || !(safe || error.notSent)) throw error;
        reason = error.message;
      }
      const backoff = Math.min(maxDelay, policy.baseDelayMs * 2 ** (attempt - 1));
      // Full jitter on the upper half: spreads retries of many clients without ever waiting 0.
      const delayMs = Math.round(Math.min(maxDelay * 3, retryAfterMs ?? backoff * (0.5 + random() / 2)));
      // Interrupted (`stop` or `signal`): no retry starts, and a backoff under way is cut short.
      const interrupted = AbortSignal.any([request.signal, request.stop].filter((signal): signal is AbortSignal => signal !== undefined));
      if (!interrupted.aborted) {
        policy.onRetry?.({ attempt, delayMs, reason, url: request.url });
        await wait(delayMs, interrupted).catch((error: unknown) => {
          if (!interrupted.aborted) throw error;
        });
      }
      if (interrupted.aborted) throw new TransportError(`interrupted (not retried after ${reason})`, request.url, 'ABORTED');
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
