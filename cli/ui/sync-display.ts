/**
 * Progress of a sync on stderr: a live Ink view on a terminal, plain lines otherwise (one per
 * resource read, one per chunk written), so logs of unattended runs stay readable.
 */
import type { SyncEvent } from '../../sync/engine/run-sync.js';
import type { ResourceName } from '../../sync/mirror/store.js';
import type { CommandContext } from '../context.js';
import { formatBytes } from '../output/time.js';
import { mountLive, type LiveView } from './live.js';
import { initialSyncProgress, reduceSyncProgress, type SyncProgressState } from './sync-progress-state.js';

export interface SyncDisplay {
  onEvent(event: SyncEvent): void;
  stop(): Promise<void>;
}

export async function syncDisplay(ctx: CommandContext, resources: readonly ResourceName[]): Promise<SyncDisplay> {
  if (!ctx.stderrTty) {
    return {
      onEvent(event) {
        if (event.type === 'fetched') ctx.info(`${event.resource}: HTTP ${event.status}, ${formatBytes(event.bytes)}`);
        if (event.type === 'applying') ctx.info(`writing ${event.resource}: ${event.done}/${event.total}`);
      },
      stop: async () => {},
    };
  }
  let state = initialSyncProgress(resources);
  const view: LiveView<{ state: SyncProgressState }> = await mountLive(ctx.io.stderr, async () => (await import('./SyncProgress.js')).SyncProgress, { state });
  return {
    onEvent(event) {
      state = reduceSyncProgress(state, event);
      view.update({ state });
    },
    stop: () => view.stop(),
  };
}
