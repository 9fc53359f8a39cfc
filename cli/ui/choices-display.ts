/**
 * Progress of `fieldops choices push` (one request per record: thousands take a while): a live
 * Ink view on stderr when it is a terminal, redrawn at most every 100 ms; nothing when stderr is
 * not a terminal or with --json, so logs and pipes get only the final report.
 */
import type { ChoicesProgress } from '../choices/push.js';
import type { CommandContext } from '../context.js';
import { mountProgress } from './live.js';

export interface ChoicesDisplay {
  onProgress: ChoicesProgress;
  stop(): Promise<void>;
}

export async function choicesDisplay(ctx: CommandContext, total: number, now: () => number = Date.now): Promise<ChoicesDisplay> {
  const view = await mountProgress(ctx, async () => (await import('./ChoicesProgress.js')).ChoicesProgress, { done: 0, total, created: 0, existing: 0, refused: 0 }, now);
  if (!view) return { onProgress: () => {}, stop: async () => {} };
  return {
    onProgress: (done, all, result) => view.update({ done, total: all, created: result.created, existing: result.existing, refused: result.refused.length }, done >= all),
    stop: () => view.stop(),
  };
}
