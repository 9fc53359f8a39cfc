import type { Command } from 'commander';
import { connect, printJson } from '../context.js';
import { CommandExit, EXIT, UserFacingError } from '../errors.js';
import type { CliIo } from '../main.js';
import type { OutboxEntry } from '../../sync/outbox/model.js';
import type { UserIdentity } from '../../sync/mirror/identity.js';
import type { PushReport } from '../../sync/push/run-push.js';
import { clientAction, withCommonOptions } from './common.js';

export function registerPushCommand(program: Command, io: CliIo): void {
  withCommonOptions(
    program
      .command('push')
      .description('send what was recorded offline (the outbox) to the server, in recorded order, exactly once')
      .addHelpText(
        'after',
        '\nEach record is sent with the id it got when it was recorded, so a push cut off at any point\n' +
          'and repeated never makes a duplicate. A record the server rejects (4xx) is marked rejected\n' +
          'with its reason and the push goes on; a network failure or 5xx stops it, the rest stays queued.\n' +
          'Ctrl-C lets the request in flight finish and stops (a second Ctrl-C abandons it; safe to send again).\n' +
          'Records made by another user on this laptop (or for another server) are not sent: they stay\n' +
          'queued for that user\'s next login (or `fieldops outbox drop <id>`).\n' +
          'Exit codes: 0 all sent, 1 something was rejected, in conflict, held for another user, or is still queued, 130 interrupted.',
      ),
  ).action(
    clientAction(io, async (ctx) => {
      const [{ openOffline }, { pushOutbox, pushProgress }, { renderPushReport, pushReportJson, interruptedLine }] = await Promise.all([
        import('../record/open.js'),
        import('../record/push.js'),
        import('../render/push-report.js'),
      ]);
      const stores = await openOffline(ctx);
      try {
        if ((await stores.outbox.counts()).pending === 0) {
          if (ctx.json) printJson(ctx, { ...pushReportJson(emptyReport()), held_for_others: [] });
          else ctx.print('Nothing to push: the outbox is empty.');
          return;
        }
        // Retries only what is safe to repeat: keyed record writes and de-duplicated observations.
        const connection = await connect(ctx);
        try {
          // connect() gave the mirror to this session's user: the outbox sends only their entries.
          const me = ctx.device.user ?? { server: connection.session.server, userId: null, username: null };
          const { heldForOthers } = await import('../../sync/outbox/owner.js');
          const held = await heldForOthers(stores.outbox, me);
          let report = emptyReport();
          if ((await stores.outbox.counts()).pending > held.length) {
            const progress = await pushProgress(ctx);
            const pushed = await pushOutbox(ctx, connection, stores, progress.onEvent).finally(progress.stop);
            // The engine counts every pending entry; those held for others were never its to send.
            report = { ...pushed, total: pushed.total - held.length, remaining: Math.max(0, pushed.remaining - held.length) };
          }
          if (ctx.json) printJson(ctx, { ...pushReportJson(report), held_for_others: held.map((e) => ({ id: e.id, kind: e.kind, username: e.username, user_id: e.userId, server: e.server })) });
          else {
            const text = report.total > 0 ? renderPushReport(report, ctx.out) : '';
            if (text) ctx.print(text);
          }
          if (report.interrupted) {
            ctx.info(interruptedLine(report));
            throw new CommandExit(EXIT.interrupted);
          }
          if (report.stopped) {
            const queued = `${report.remaining} record${report.remaining === 1 ? ' is' : 's are'} still queued; run \`fieldops push\` again when the server is reachable`;
            throw new UserFacingError(`push stopped: ${report.stopped}`, report.stoppedHint ? `${report.stoppedHint}; ${queued}` : queued);
          }
          if (held.length > 0) throw heldFailure(held, me);
          if (report.rejected.length || report.conflicts.length) throw new CommandExit(EXIT.failure);
        } finally {
          await connection.close();
        }
      } finally {
        await stores.close();
      }
    }),
  );
}

const emptyReport = (): PushReport => ({ total: 0, sent: 0, alreadyThere: 0, rejected: [], conflicts: [], requests: 0, stopped: null, stoppedHint: null, interrupted: false, remaining: 0 });

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
