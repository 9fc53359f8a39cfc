/**
 * Pushing the outbox from the CLI: under the mirror's push lock, after checking the mirror is
 * the logged-in server's. Shared by `fieldops push` and `fieldops sync`.
 */
import { withFileLock } from '../../sync/outbox/lock.js';
import { runPush, type PushEvent, type PushReport } from '../../sync/push/run-push.js';
import type { Connection, CommandContext } from '../context.js';
import { UserFacingError } from '../errors.js';
import type { OfflineStores } from './open.js';

export async function pushOutbox(ctx: CommandContext, connection: Connection, stores: OfflineStores, onEvent?: (event: PushEvent) => void): Promise<PushReport> {
  const meta = await stores.mirror.meta();
  if (meta && meta.server !== connection.session.server) {
    throw new UserFacingError(`the mirror holds records for ${meta.server}, not ${connection.session.server}`, 'log in to the server the records were made for, or use another --profile');
  }
  return withFileLock(`${stores.file}.push.lock`, () => runPush({ transport: connection.transport, server: connection.session.server, outbox: stores.outbox, onEvent }), {
    onWait: () => ctx.info('another fieldops push of this mirror is running; waiting for it to finish'),
  });
}

/** Progress on a terminal: one line rewritten in place (stderr); nothing when piped. */
export function pushProgress(ctx: CommandContext): { onEvent: (event: PushEvent) => void; stop(): void } {
  if (!ctx.stderrTty || ctx.json) return { onEvent: () => {}, stop: () => {} };
  let last = 0;
  let shown = false;
  return {
    onEvent(event) {
      if (event.type === 'start') return;
      const now = Date.now();
      if (now - last < 100 && event.done < event.total) return;
      last = now;
      shown = true;
      ctx.io.stderr.write(`\rpushing ${event.done}/${event.total}`);
    },
    stop: () => {
      if (shown) ctx.io.stderr.write('\r\u001b[2K');
    },
  };
}
