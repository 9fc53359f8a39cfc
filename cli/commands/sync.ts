import type { Command } from 'commander';
import { connect, openMirror, printJson } from '../context.js';
import type { CliIo } from '../main.js';
import { clientAction, withCommonOptions } from './common.js';

export function registerSyncCommand(program: Command, io: CliIo): void {
  withCommonOptions(
    program
      .command('sync')
      .description('push what was recorded offline, then mirror patrol types, the tracked-by schema, v2 event types and choices for offline use')
      .addHelpText(
        'after',
        '\nOnly what changed is downloaded (ETag / Last-Modified): an unchanged server costs one 304 per resource.\n' +
          'All changes are written in one transaction: the mirror is the old or the new state, never a mix.\n' +
          'Network errors and 5xx are retried with backoff (FIELDOPS_RETRIES, FIELDOPS_RETRY_DELAY_MS).',
      ),
  )
    .option('--records', 'also pull open and recent patrols, recent events and subjects (as `fieldops pull`); once a mirror has pulled records, every sync does')
    .action(
      clientAction<{ profile?: string; json?: boolean; records?: boolean }>(io, async (ctx, options) => {
        // Loaded when the command runs: other commands start without the sync engine.
        const [{ runSync }, { RESOURCE_SPECS }, { renderSyncReport, syncReportJson }, { syncDisplay }, offline] = await Promise.all([
          import('../../sync/engine/run-sync.js'),
          import('../../sync/engine/resources.js'),
          import('../render/sync-report.js'),
          import('../ui/sync-display.js'),
          import('../record/sync-steps.js'),
        ]);
        const connection = await connect(ctx);
        try {
          const store = await openMirror(ctx, { create: true });
          try {
            const pushed = await offline.pushBeforeSync(ctx, connection);
            const display = await syncDisplay(ctx, RESOURCE_SPECS.map((s) => s.name));
            let report;
            try {
              report = await runSync({ transport: connection.transport, server: connection.session.server, username: connection.session.username, store, onEvent: display.onEvent });
            } finally {
              await display.stop();
            }
            const pulled = await offline.pullAfterSync(ctx, connection, options.records === true);
            for (const warning of report.warnings) ctx.warn(warning);
            if (ctx.json) printJson(ctx, pushed || pulled ? { ...syncReportJson(report, connection.wire), push: pushed, pull: pulled } : syncReportJson(report, connection.wire));
            else ctx.print(renderSyncReport(report, connection.wire, ctx.out) + offline.offlineSummary(pushed, pulled));
          } finally {
            await store.close();
          }
        } finally {
          await connection.close();
        }
      }),
    );
}
