/**
 * Pushing the outbox from the CLI: under the mirror's push lock, after checking the mirror is
 * the logged-in server's. Shared by `fieldops push` and `fieldops sync`.
 */
import { withFileLock } from '../../sync/file-lock.js';
import { mirrorFolderHint } from '../../sync/mirror/open-failure.js';
import { runPush, type PushEvent, type PushInterrupt, type PushReport } from '../../sync/push/run-push.js';
import type { Connection, CommandContext } from '../context.js';
import { UserFacingError } from '../errors.js';
import { mountProgress } from '../ui/live.js';
import type { PushProgressProps } from '../ui/PushProgress.js';
import type { OfflineStores } from './open.js';

export async function pushOutbox(ctx: CommandContext, connection: Connection, stores: OfflineStores, onEvent?: (event: PushEvent) => void): Promise<PushReport> {
  const meta = await stores.mirror.meta();
  if (meta && meta.server !== connection.session.server) {
    throw new UserFacingError(`the mirror holds records for ${meta.server}, not ${connection.session.server}`, 'log in to the server the records were made for, or use another --profile');
  }
  return withFileLock(`${stores.file}.push.lock`, () => whileInterruptible(ctx, (interrupt) => runPush({ transport: connection.transport, server: connection.session.server, outbox: stores.outbox, onEvent, interrupt })), {
    waitMs: 120_000,
    busy: { message: `another fieldops push holds ${stores.file}.push.lock`, hint: 'wait for it to finish, or delete the lock file if no fieldops is running' },
    folderHint: mirrorFolderHint(stores.file),
    onWait: () => ctx.info('another fieldops push of this mirror is running; waiting for it to finish'),
  });
}

/**
 * Ctrl-C during a push: the first SIGINT lets the request in flight finish (its outcome is
 * recorded) and starts no other, nor a retry of it (a backoff under way ends at once); a second
 * abandons it (safe: the entry stays queued and sending it again cannot make a duplicate). The
 * push then reports what was sent and what is queued.
 */
async function whileInterruptible<T>(ctx: CommandContext, work: (interrupt: PushInterrupt) => Promise<T>): Promise<T> {
  const stop = new AbortController();
  const abandon = new AbortController();
  const onSigint = () => {
    if (stop.signal.aborted) return abandon.abort();
    ctx.status.clear();
    ctx.info('interrupting: finishing the request in flight (Ctrl-C again to abandon it; it is safe to send again)');
    stop.abort();
  };
  process.on('SIGINT', onSigint);
  try {
    return await work({ stop: stop.signal, signal: abandon.signal });
  } finally {
    process.off('SIGINT', onSigint);
  }
}

/** Progress on a terminal: a live Ink view on stderr (cli/ui/live.ts: mountProgress); nothing when piped. */
export async function pushProgress(ctx: CommandContext): Promise<{ onEvent: (event: PushEvent) => void; stop(): Promise<void> }> {
  const state: PushProgressProps = { done: 0, total: 0, sent: 0, rejected: 0, conflicts: 0, current: null };
  const view = await mountProgress(ctx, async () => (await import('../ui/PushProgress.js')).PushProgress, { ...state });
  if (!view) return { onEvent: () => {}, stop: async () => {} };
  return {
    onEvent(event) {
      if (event.type === 'start') state.total = event.total;
      else {
        state.done = event.done;
        if (event.status === 'sent') state.sent++;
        if (event.status === 'rejected') state.rejected++;
        if (event.status === 'conflict') state.conflicts++;
        state.current = `${event.entry.kind} ${event.entry.source ?? event.entry.id}`;
      }
      view.update({ ...state }, state.done >= state.total);
    },
    stop: () => view.stop(),
  };
}
