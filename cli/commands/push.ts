import type { Command } from 'commander';
import { connect, printJson } from '../context.js';
import { CommandExit, EXIT, UserFacingError } from '../errors.js';
import type { CliIo } from '../main.js';
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
      const [{ openOffline }, { emptyPushReport, heldFailure, pushMine }, { renderPushReport, pushReportJson, interruptedLine }] = await Promise.all([
        import('../record/open.js'),
        import('../record/push.js'),
        import('../render/push-report.js'),
      ]);
      const stores = await openOffline(ctx);
      try {
        if ((await stores.outbox.counts()).pending === 0) {
          if (ctx.json) printJson(ctx, { ...pushReportJson(emptyPushReport()), held_for_others: [] });
          else ctx.print('Nothing to push: the outbox is empty.');
          return;
        }
        // Retries only what is safe to repeat: keyed record writes and de-duplicated observations.
        const connection = await connect(ctx);
        try {
          const { report, held, me } = await pushMine(ctx, connection, stores);
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
          // Nothing refused and nothing stopped, yet some of this user's records are still queued
          // (deferred again, or waiting on an entry that did not go): not a success.
          const left = report.remaining - held.length;
          if (left > 0) throw new UserFacingError(`${left} record${left === 1 ? ' is' : 's are'} still queued`, 'run `fieldops push` again; `fieldops outbox` shows what they wait for');
        } finally {
          await connection.close();
        }
      } finally {
        await stores.close();
      }
    }),
  );
}
