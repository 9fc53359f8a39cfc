/**
 * One push's state, shared by the batched path (run-push.ts) and the one-by-one path
 * (run-push-single.ts): the report, the requests (every one through `send`, which turns network
 * failures, 5xx, 401, 408 and an interruption into a `Stop`), and `settle`, which records
 * outcomes in the mirror (one transaction per call) and counts them.
 */
import { describeErrorBody } from '../http-errors.js';
import { TransportError, type Transport, type TransportRequest, type TransportResponse } from '../http.js';
import { entriesWithConflicts } from '../outbox/conflicts.js';
import type { OutboxEntry, OutboxStatus } from '../outbox/model.js';
import type { OutboxStore, SettledEntry } from '../outbox/store.js';

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
  /** Of `sent`: merged with changes made on the server since their base (other fields kept). */
  merged: number;
  /** Of `sent`: their conflicts settled by the server's policy (the server's values kept, or theirs overwritten). */
  settled: PushOutcome[];
  rejected: PushOutcome[];
  conflicts: PushOutcome[];
  /** Requests that carried entries (an older server's 404 to the batched push is not counted). */
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
  /** false: one request per entry, as for a server without the batched push. */
  batched?: boolean;
}

export class Stop extends Error {
  constructor(
    message: string,
    readonly hint: string | null = null,
    readonly interrupted = false,
  ) {
    super(message);
  }
}

const STOP_STATUSES = new Set([401, 408, 429]);

export const emptyReport = (total = 0): PushReport => ({
  total, sent: 0, alreadyThere: 0, merged: 0, settled: [], rejected: [], conflicts: [], requests: 0, stopped: null, stoppedHint: null, interrupted: false, remaining: 0,
});

export class PushRun {
  readonly report: PushReport;
  /** Entries refused in this push (rejected, or in a conflict the server never applied). */
  readonly failed = new Set<string>();
  private done = 0;

  constructor(
    readonly options: PushOptions,
    total: number,
  ) {
    this.report = emptyReport(total);
  }

  get outbox(): OutboxStore {
    return this.options.outbox;
  }

  /**
   * Sends a request. Statuses in `pass` are returned to the caller; otherwise 5xx, 401, 408 and
   * 429 stop the push, as do network failures and an interruption.
   */
  async send(request: TransportRequest, pass: ReadonlySet<number> = new Set(), counted = true): Promise<TransportResponse> {
    const interrupt = this.options.interrupt;
    if (interrupt?.stop.aborted || interrupt?.signal.aborted) throw new Stop('interrupted', null, true);
    if (counted) this.report.requests++;
    let response: TransportResponse;
    try {
      response = await this.options.transport(interrupt ? { ...request, stop: interrupt.stop, signal: interrupt.signal } : request);
    } catch (error) {
      if (error instanceof TransportError && error.code === 'ABORTED') throw new Stop('interrupted', null, true);
      if (error instanceof TransportError) throw new Stop(`server unreachable at ${new URL(error.url).origin}: ${error.message}`, error.hint ?? null);
      throw error;
    }
    if (pass.has(response.status)) return response;
    if (response.status >= 500 || STOP_STATUSES.has(response.status)) {
      const detail = describeErrorBody(response);
      throw new Stop(`the server answered HTTP ${response.status}${detail && response.status < 500 ? `: ${detail}` : ''}`);
    }
    return response;
  }

  /** Records outcomes in one mirror transaction, then counts them and reports progress. */
  async settle(settled: Array<{ entry: OutboxEntry; outcome: SettledEntry }>): Promise<void> {
    if (settled.length === 0) return;
    await this.outbox.settle(settled.map((s) => s.outcome));
    for (const { entry, outcome } of settled) {
      this.done++;
      const line = { id: entry.id, kind: entry.kind, source: entry.source, status: outcome.status, reason: outcome.reason ?? null };
      if (outcome.status === 'sent') {
        this.report.sent++;
        if (outcome.outcome?.status === 'merged') this.report.merged++;
        if (outcome.conflicts?.length) this.report.settled.push(line);
      }
      if (outcome.status === 'rejected') this.report.rejected.push(line);
      if (outcome.status === 'conflict') this.report.conflicts.push(line);
      if (outcome.status === 'rejected' || (outcome.status === 'conflict' && !outcome.conflicts?.length)) this.failed.add(entry.id);
      this.options.onEvent?.({ type: 'progress', done: this.done, total: this.report.total, entry, status: outcome.status });
    }
  }

  /**
   * What to do with an entry whose dependency (a create made offline) is not sent: `send` when
   * it is sent, in `inFlight` (the same request) or unknown; `wait` while it is pending and not
   * this push's to send (recorded by another user); else the reason to reject it.
   */
  async dependency(entry: OutboxEntry, inFlight: ReadonlySet<string> = new Set()): Promise<'send' | 'wait' | string> {
    const on = entry.dependsOn;
    if (!on || inFlight.has(on)) return 'send';
    const blocker = this.failed.has(on) ? 'rejected' : (await this.outbox.get(on))?.status;
    if (blocker === 'pending') return 'wait';
    // A conflict kept by the server's merge was applied (the record exists): its dependants go.
    if (blocker === 'conflict' && (await entriesWithConflicts(this.outbox.knex, [on])).has(on)) return 'send';
    if (blocker && blocker !== 'sent') return `not sent: it depends on ${on}, which is ${blocker}`;
    return 'send';
  }
}
