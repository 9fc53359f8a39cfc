import type { Command } from 'commander';
import { connect, openMirror, printJson } from '../context.js';
import type { CliIo } from '../main.js';
import { clientAction, collect, withCommonOptions } from './common.js';

export function registerPullCommand(program: Command, io: CliIo): void {
  withCommonOptions(
    program
      .command('pull')
      .description('pull patrols, events, subjects and the catalogs through the server\'s change feed, for offline reads')
      .addHelpText(
        'after',
        '\nOnly what changed since the last pull is sent, deletions included; each page is committed with its\n' +
          'cursor, so an interrupted pull resumes where it stopped. The result is checked against the server\'s\n' +
          'counts and checksums per scope, and repaired when it differs. Default scope: open patrols, events and\n' +
          'patrols of the last 30 days, subjects, catalogs (`--scope` changes it; see `fieldops sync --help`).\n' +
          'A server without the feed gets the older `updated_since` pull (deletions then do not arrive).',
      ),
  )
    .option('--scope <scope>', 'mine | team:<group id> | category:<c> | bbox:<w,s,e,n> | window:<N>d (repeatable; stored)', collect)
    .option('--reset', 'rebuild the pulled records from a fresh snapshot (the outbox is kept)')
    .action(
      clientAction<{ profile?: string; json?: boolean; scope?: string[]; reset?: boolean }>(io, async (ctx, options) => {
        const [{ runFeedStep }, { feedJson, feedSummary, pullLines }, { parseScopes }] = await Promise.all([import('./feed-steps.js'), import('../render/feed-report.js'), import('../../sync/feed/scopes.js')]);
        const scopes = options.scope ? parseScopes(options.scope) : undefined;
        const connection = await connect(ctx);
        try {
          // A first pull makes the mirror, as a first sync does.
          await (await openMirror(ctx, { create: true })).close();
          const report = await runFeedStep(ctx, connection, { scopes, reset: options.reset, repair: true });
          const requests = connection.wire.requests();
          if (ctx.json) printJson(ctx, { pull: pullLines(report, requests), feed: feedJson(report), wire: { requests, bytes: connection.wire.bytes() } });
          else ctx.print(feedSummary(report, requests, ctx.out));
        } finally {
          await connection.close();
        }
      }),
    );
}
