/**
 * `fieldops push`: sends the outbox in recorded order, exactly once.
 *
 * - Every record write carries the entry's id as its Idempotency-Key: a repeat after a lost
 *   answer (the transport's own retry, or the next push) is answered the server's stored answer
 *   (`Idempotent-Replayed: true`), a success like any other, so it is never a conflict with itself.
 * - Creates carry the id recorded offline. A 409 means the server has the record already (an
 *   earlier push was cut off after the server committed, and the server predates the key or
 *   has forgotten it): its version is read back and compared;
 *   the same content marks the entry sent, different content marks it a conflict.
 * - An update carries `If-Match` with the ETag it was based on; a 412 marks it a conflict with
 *   the server's version kept beside it (`fieldops outbox resolve`).
 * - Any other 4xx rejects that entry with the server's reason, and every entry that depends on it;
 *   the push continues with the others.
 * - A network failure, a 5xx, 401, 408 or 429 stops the push: the rest stays queued, and the
 *   next push resumes where this one stopped.
 * - Each outcome is written to the mirror (one transaction per request) only after the server
 *   answered, so a push killed at any point is resumed by the next one without a duplicate.
 * - Observations of one source go in batches (the sensor API takes up to 1000 per request and
 *   treats a repeat of the same source and `recorded_at` as a duplicate, 200).
 * - An interruption (Ctrl-C) stops the push between requests, and before any retry of the
 *   request in flight; a second one abandons the request in flight through its signal. Either way its entry stays queued: a create carries its id and
 *   observations are de-duplicated, so sending it again is safe.
 */
import { describeErrorBody } from '../http-errors.js';
import { TransportError, bodyText, header, type Transport, type TransportResponse } from '../http.js';
import type { OutboxEntry, OutboxStatus } from '../outbox/model.js';
import type { OutboxStore } from '../outbox/store.js';
import { observationBatch, readBackUrl, requestFor, sameAsRecorded } from './requests.js';

export const OBSERVATION_BATCH = 1000;
const PAGE = 2000;
const STOP_STATUSES = new Set([401, 408, 429]);

export type PushEvent =
  | { type: 'start'; total: number }
  | { type: 'progress'; done: number; total: number; entry: OutboxEntry; status: OutboxStatus };

export interface PushOutcome {
  id: string;
  kind: string;
  source: string | null;
  status: OutboxStatus;
  reason: string | null;
}

export interface PushReport {
  total: number;
  sent: number;
  /** Of `sent`: already on the server (409 with the same content). */
  alreadyThere: number;
  rejected: PushOutcome[];
  conflicts: PushOutcome[];
  requests: number;
  /** Why the push stopped early (the rest stays queued); null when the outbox was emptied. */
  stopped: string | null;
  /** What to do about the stop, when it says more than "push again later" (a TLS failure). */
  stoppedHint: string | null;
  /** Stopped because the user interrupted it (`stopped` is then "interrupted"). */
  interrupted: boolean;
  remaining: number;
}

/**
 * How the caller interrupts a push: once `stop` fires no request starts, nor a retry of one (a
 * backoff under way ends); `signal` abandons the request in flight too.
 */
export interface PushInterrupt {
  readonly stop: AbortSignal;
  readonly signal: AbortSignal;
}

export interface PushOptions {
  transport: Transport;
  server: string;
  outbox: OutboxStore;
  onEvent?: (event: PushEvent) => void;
  interrupt?: PushInterrupt;
}

class Stop extends Error {
  constructor(
    message: string,
    readonly hint: string | null = null,
    readonly interrupted = false,
  ) {
    super(message);
  }
}

export async function runPush(options: PushOptions): Promise<PushReport> {
  const { outbox, transport, server } = options;
  const total = (await outbox.counts()).pending;
  const report: PushReport = { total, sent: 0, alreadyThere: 0, rejected: [], conflicts: [], requests: 0, stopped: null, stoppedHint: null, interrupted: false, remaining: 0 };
  const interrupt = options.interrupt;
  options.onEvent?.({ type: 'start', total });
  const failed = new Set<string>();
  let done = 0;

  const send = async (request: Parameters<Transport>[0]): Promise<TransportResponse> => {
    if (interrupt?.stop.aborted || interrupt?.signal.aborted) throw new Stop('interrupted', null, true);
    report.requests++;
    let response: TransportResponse;
    try {
      response = await transport(interrupt ? { ...request, stop: interrupt.stop, signal: interrupt.signal } : request);
    } catch (error) {
      if (error instanceof TransportError && error.code === 'ABORTED') throw new Stop('interrupted', null, true);
      if (error instanceof TransportError) throw new Stop(`server unreachable at ${new URL(error.url).origin}: ${error.message}`, error.hint ?? null);
      throw error;
    }
    if (response.status >= 500 || STOP_STATUSES.has(response.status)) {
      const detail = describeErrorBody(response);
      throw new Stop(`the server answered HTTP ${response.status}${detail && response.status < 500 ? `: ${detail}` : ''}`);
    }
    return response;
  };

  const settle = async (entries: OutboxEntry[], status: OutboxStatus, extra: { reason?: string | null; theirs?: unknown; etag?: string | null } = {}) => {
    await outbox.settle(entries.map((e) => ({ id: e.id, status, ...extra })));
    for (const entry of entries) {
      done++;
      const outcome = { id: entry.id, kind: entry.kind, source: entry.source, status, reason: extra.reason ?? null };
      if (status === 'sent') report.sent++;
      if (status === 'rejected') report.rejected.push(outcome);
      if (status === 'conflict') report.conflicts.push(outcome);
      if (status === 'rejected' || status === 'conflict') failed.add(entry.id);
      options.onEvent?.({ type: 'progress', done, total, entry, status });
    }
  };

  const readBack = async (entry: OutboxEntry): Promise<{ body: unknown; etag: string | null } | null> => {
    const url = readBackUrl(server, entry);
    if (!url) return null;
    const response = await send({ method: 'GET', url, headers: { accept: 'application/json' } });
    if (response.status !== 200) return null;
    return { body: JSON.parse(bodyText(response)), etag: header(response, 'etag') ?? null };
  };

  const pushOne = async (entry: OutboxEntry) => {
    if (entry.dependsOn) {
      const blocker = failed.has(entry.dependsOn) ? 'rejected' : (await outbox.get(entry.dependsOn))?.status;
      // Entries go in recorded order, so a dependency still pending here was not this push's to
      // send (recorded by another user on this laptop): the dependent waits with it.
      if (blocker === 'pending') return;
      if (blocker && blocker !== 'sent') {
        return settle([entry], 'rejected', { reason: `not sent: it depends on ${entry.dependsOn}, which is ${blocker}` });
      }
    }
    const response = await send(requestFor(server, entry, entry.baseEtag));
    const etag = header(response, 'etag') ?? null;
    if (response.status < 300) return settle([entry], 'sent', { etag });
    if (response.status === 409 && entry.kind !== 'event.update' && entry.kind !== 'patrol.update') {
      const theirs = await readBack(entry);
      if (theirs && sameAsRecorded(entry, theirs.body)) {
        report.alreadyThere++;
        return settle([entry], 'sent', { etag: theirs.etag });
      }
      return settle([entry], 'conflict', { reason: `the server already has ${entry.target} with other content (409)`, theirs: theirs ? { etag: theirs.etag, record: theirs.body } : null });
    }
    if (response.status === 412) {
      const theirs = await readBack(entry);
      return settle([entry], 'conflict', { reason: 'changed on the server since it was pulled (412)', theirs: theirs ? { etag: theirs.etag, record: theirs.body } : null });
    }
    return settle([entry], 'rejected', { reason: `HTTP ${response.status}: ${describeErrorBody(response) ?? 'rejected'}` });
  };

  const pushObservations = async (batch: OutboxEntry[]) => {
    const response = await send(observationBatch(server, batch));
    if (response.status < 300) return settle(batch, 'sent');
    if (batch.length === 1) return settle(batch, 'rejected', { reason: `HTTP ${response.status}: ${describeErrorBody(response) ?? 'rejected'}` });
    // The API stores nothing of a batch with an invalid item: send them one by one to keep the good ones.
    for (const entry of batch) await pushObservations([entry]);
  };

  try {
    let after = 0;
    for (;;) {
      const page = await outbox.pending(after, PAGE);
      if (page.length === 0) break;
      for (let i = 0; i < page.length; ) {
        const entry = page[i]!;
        if (entry.kind === 'observation') {
          let j = i + 1;
          while (j < page.length && j - i < OBSERVATION_BATCH && page[j]!.kind === 'observation' && page[j]!.batchKey === entry.batchKey) j++;
          await pushObservations(page.slice(i, j));
          i = j;
        } else {
          await pushOne(entry);
          i++;
        }
      }
      after = page[page.length - 1]!.seq;
    }
  } catch (error) {
    if (!(error instanceof Stop)) throw error;
    report.stopped = error.message;
    report.stoppedHint = error.hint;
    report.interrupted = error.interrupted;
  }
  report.remaining = (await outbox.counts()).pending;
  return report;
}
