/**
 * Progress of a replay on stderr: a live Ink view on a terminal; without one, a plain line for
 * every rejected line and about every tenth of the recording.
 */
import type { ReplayEvent } from '../replay/run-replay.js';
import type { CommandContext } from '../context.js';
import { mountLive } from './live.js';
import type { ReplayProgressProps } from './ReplayProgress.js';

export interface ReplayDisplay {
  onLine(event: ReplayEvent): void;
  stop(): Promise<void>;
}

export async function replayDisplay(ctx: CommandContext, recording: string, total: number): Promise<ReplayDisplay> {
  const started = ctx.now();
  const counts = { created: 0, duplicate: 0, accepted: 0, rejected: 0 };
  if (!ctx.stderrTty) {
    const every = Math.max(1, Math.floor(total / 10));
    return {
      onLine({ result, done }) {
        counts[result.outcome]++;
        if (result.outcome === 'rejected') ctx.info(`line ${result.line}: rejected (HTTP ${result.status}): ${result.reason}`);
        if (done % every === 0 || done === total) ctx.info(`${done}/${total} sent: ${counts.created} created, ${counts.duplicate} duplicate, ${counts.accepted} accepted, ${counts.rejected} rejected`);
      },
      stop: async () => {},
    };
  }
  const props = (done: number, lastLine: number | null): ReplayProgressProps => ({
    recording,
    done,
    total,
    counts: { ...counts },
    rate: done / Math.max(0.001, (ctx.now() - started) / 1000),
    lastLine,
  });
  const view = await mountLive(ctx.io.stderr, async () => (await import('./ReplayProgress.js')).ReplayProgress, props(0, null));
  return {
    onLine({ result, done }) {
      counts[result.outcome]++;
      view.update(props(done, result.line));
    },
    stop: () => view.stop(),
  };
}
