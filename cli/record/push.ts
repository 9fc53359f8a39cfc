/**
 * Pushing the outbox from the CLI: under the mirror's push lock, after checking the mirror is
 * the logged-in server's. Shared by `fieldops push` and `fieldops sync`.
 */
import { withFileLock } from '../../sync/file-lock.js';
import type { UserIdentity } from '../../sync/mirror/identity.js';
import type { OutboxEntry } from '../../sync/outbox/model.js';
import { heldForOthers } from '../../sync/outbox/owner.js';
import { mirrorFolderHint } from '../../sync/mirror/open-failure.js';
import { runPush, type PushEvent, type PushInterrupt, type PushReport } from '../../sync/push/run-push.js';
import { emptyReport } from '../../sync/push/run-state.js';
import type { Connection, CommandContext } from '../context.js';
import { EXIT, UserFacingError } from '../errors.js';
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

export const emptyPushReport = (): PushReport => emptyReport();

/**
 * Pushes the entries of this session's user (connect() gave the mirror to them); the entries
 * other users recorded on this laptop stay queued for them (`held`), counted in no total.
 */
export async function pushMine(ctx: CommandContext, connection: Connection, stores: OfflineStores): Promise<{ report: PushReport; held: OutboxEntry[]; me: UserIdentity }> {
  const me = ctx.device.user ?? { server: connection.session.server, userId: null, username: null };
  stores.outbox.sendAs(me);
  const held = await heldForOthers(stores.outbox, me);
  if ((await stores.outbox.counts()).pending <= held.length) return { report: emptyPushReport(), held, me };
  const progress = await pushProgress(ctx);
  const pushed = await pushOutbox(ctx, connection, stores, progress.onEvent).finally(progress.stop);
  // The engine counts every pending entry; those held for others were never its to send.
  return { report: { ...pushed, total: pushed.total - held.length, remaining: Math.max(0, pushed.remaining - held.length) }, held, me };
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

/**
 * Entries recorded by other users (or for another server) stay queued, unsent: said per user,
 * with how to send them (log in as that user) or give them up (drop).
 */
export function heldFailure(held: OutboxEntry[], me: UserIdentity): UserFacingError {
  const byUser = new Map<string, { username: string; server: string | null; count: number }>();
  for (const entry of held) {
    const username = entry.username ?? entry.userId ?? 'an unknown user';
    const key = `${entry.server ?? ''} ${username}`;
    const group = byUser.get(key) ?? { username, server: entry.server ?? null, count: 0 };
    group.count++;
    byUser.set(key, group);
  }
  const groups = [...byUser.values()];
  const where = (g: { server: string | null }) => (g.server && g.server !== me.server ? ` for ${g.server}` : '');
  const said = groups.map((g, i) => `${i === 0 ? `${g.count} ${g.count === 1 ? 'entry was' : 'entries were'}` : g.count} recorded by ${g.username}${where(g)}`).join(', ');
  const logins = groups.map((g) => `log in as ${g.username} (fieldops login ${g.server && g.server !== me.server ? `--server ${g.server} ` : ''}--username ${g.username})`).join(' or ');
  return new UserFacingError(said, `${logins} to send them, or drop them (fieldops outbox drop <id>)`, EXIT.failure);
}
