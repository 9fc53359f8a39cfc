/**
 * Progress of `fieldops choices push` (one request per record: thousands take a while): a live
 * Ink view on stderr when it is a terminal, redrawn at most every 100 ms; nothing when stderr is
 * not a terminal or with --json, so logs and pipes get only the final report.
 */
import type { ChoicesProgress } from '../choices/push.js';
import type { CommandContext } from '../context.js';
import type { ChoicesProgressProps } from './ChoicesProgress.js';

export interface ChoicesDisplay {
  onProgress: ChoicesProgress;
  stop(): Promise<void>;
}

const REDRAW_MS = 100;

export async function choicesDisplay(ctx: CommandContext, total: number, now: () => number = Date.now): Promise<ChoicesDisplay> {
  if (!ctx.stderrTty || ctx.json) return { onProgress: () => {}, stop: async () => {} };
  const { mountLive } = await import('./live.js');
  const initial: ChoicesProgressProps = { done: 0, total, created: 0, existing: 0, refused: 0 };
  const view = await mountLive(ctx.io.stderr, async () => (await import('./ChoicesProgress.js')).ChoicesProgress, initial);
  let last = 0;
  return {
    onProgress(done, all, result) {
      const at = now();
      if (at - last < REDRAW_MS && done < all) return;
      last = at;
      view.update({ done, total: all, created: result.created, existing: result.existing, refused: result.refused.length });
    },
    stop: () => view.stop(),
  };
}
