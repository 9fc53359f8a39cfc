/**
 * The replay loop: lines from `from` on, one request at a time (order kept), paced. It stops
 * early on a failure that would fail every line (unreachable server, credentials) or when
 * `signal` is aborted (Ctrl-C), and says from which line to resume.
 */
import { ClientFailure } from '../../sync/errors.js';
import { TransportError, type Transport } from '../../sync/http.js';
import type { Pacer } from './pacing.js';
import type { RecordingLine } from './recording.js';
import { sendLine, type LineResult, type Outcome } from './send.js';

export interface ReplayEvent {
  result: LineResult;
  done: number;
  total: number;
}

export interface ReplayResult {
  total: number;
  sent: number;
  counts: Record<Outcome, number>;
  rejected: LineResult[];
  /** Set when the replay stopped before the end: the line to pass to `--from`. */
  resumeFrom: number | null;
  stoppedBecause: string | null;
  hint: string | null;
}

export async function runReplay(options: {
  lines: readonly RecordingLine[];
  transport: Transport;
  server: string;
  pacer: Pacer;
  signal?: AbortSignal;
  onLine?: (event: ReplayEvent) => void;
}): Promise<ReplayResult> {
  const { lines } = options;
  const result: ReplayResult = {
    total: lines.length,
    sent: 0,
    counts: { created: 0, duplicate: 0, accepted: 0, rejected: 0 },
    rejected: [],
    resumeFrom: null,
    stoppedBecause: null,
    hint: null,
  };
  for (const entry of lines) {
    if (options.signal?.aborted) return stop(result, entry.line, 'interrupted', null);
    // The pacer is given the same signal: a long recorded gap ends at once on Ctrl-C.
    await options.pacer.wait(entry.at);
    if (options.signal?.aborted) return stop(result, entry.line, 'interrupted', null);
    let outcome: LineResult;
    try {
      outcome = await sendLine(options.transport, options.server, entry);
    } catch (error) {
      if (error instanceof TransportError) return stop(result, entry.line, `cannot reach ${options.server}: ${error.message}`, 'check the network and the server');
      if (error instanceof ClientFailure) return stop(result, entry.line, error.message, error.hint ?? null);
      throw error;
    }
    result.sent++;
    result.counts[outcome.outcome]++;
    if (outcome.outcome === 'rejected') result.rejected.push(outcome);
    options.onLine?.({ result: outcome, done: result.sent, total: lines.length });
  }
  return result;
}

function stop(result: ReplayResult, line: number, reason: string, hint: string | null): ReplayResult {
  return { ...result, resumeFrom: line, stoppedBecause: reason, hint };
}
