import type { Command } from 'commander';
import { connect, openMirror, printJson } from '../context.js';
import type { CliIo } from '../main.js';
import { clientAction, collect, withCommonOptions } from './common.js';

interface SyncOptions {
  profile?: string;
  json?: boolean;
  records?: boolean;
  scope?: string[];
  reset?: boolean;
  explain?: string | boolean;
}

/** The catalogs the conditional GETs read and the feed kind that carries each. */
const CATALOG_KIND = { patrol_types: 'patrol_type', event_types: 'event_type', choices: 'choice' } as const;

export function registerSyncCommand(program: Command, io: CliIo): void {
  withCommonOptions(
    program
      .command('sync')
      .description('push what was recorded offline, then mirror the catalogs (and, once a mirror pulls records, patrols, events and subjects) for offline use')
      .addHelpText(
        'after',
        '\nCatalogs: only what changed is downloaded (ETag / Last-Modified): an unchanged server costs one 304 per resource;\n' +
          'when the server has the change feed and the mirror pulls records, they ride the feed (one renamed type is one change).\n' +
          'Records (`--records`, or every sync once a mirror pulled records): the change feed, page by page,\n' +
          'each page committed with its cursor; deletions arrive; checked against the server per scope.\n' +
          'Tracks (with records): the fixes of the subjects you can see (trackingdata/export; export_observation),\n' +
          'the last 16 days at first, then per source only what is newer; at most 50000 fixes per sync\n' + // sync/pull/tracks.ts WINDOW_DAYS, MAX_POINTS_PER_SYNC
          '(the rest with the next one). A server without the export is skipped with a note; fixes of subjects you no\n' +
          'longer see (or all, without export_observation) are removed from the laptop. See `fieldops export tracks`.\n' +
          'Scopes (repeatable, a union, stored in the mirror; a change rebuilds the pulled records, keeping\n' +
          'the outbox): mine, team:<subject group id>, category:<event category>, bbox:<west,south,east,north>,\n' +
          'window:<N>d. Default: open patrols, events and patrols of the last 30 days, subjects, catalogs.\n' +
          'Network errors and 5xx are retried with backoff (FIELDOPS_RETRIES, FIELDOPS_RETRY_DELAY_MS).',
      ),
  )
    .option('--records', 'also pull patrols, events and subjects (as `fieldops pull`); once a mirror has pulled records, every sync does')
    .option('--scope <scope>', 'what to pull: mine | team:<group id> | category:<c> | bbox:<w,s,e,n> | window:<N>d (repeatable)', collect)
    .option('--reset', 'rebuild the pulled records from a fresh snapshot (the outbox is kept)')
    .option('--explain [id]', 'per scope, how many records the server counts and this laptop holds; with an id, why it is in or out')
    .action(
      clientAction<SyncOptions>(io, async (ctx, options) => {
        if (options.explain !== undefined) {
          const { explainScopes } = await import('./sync-explain.js');
          return explainScopes(ctx, typeof options.explain === 'string' ? options.explain : null);
        }
        // Loaded when the command runs: other commands start without the sync engine.
        const [{ runSync }, { RESOURCE_SPECS }, { renderSyncReport, syncReportJson }, { syncDisplay }, offline, feed, render, { parseScopes }, { readFeedState }] = await Promise.all([
          import('../../sync/engine/run-sync.js'),
          import('../../sync/engine/resources.js'),
          import('../render/sync-report.js'),
          import('../ui/sync-display.js'),
          import('../record/sync-steps.js'),
          import('./feed-steps.js'),
          import('../render/feed-report.js'),
          import('../../sync/feed/scopes.js'),
          import('../../sync/feed/state.js'),
        ]);
        const scopes = options.scope ? parseScopes(options.scope) : undefined;
        const connection = await connect(ctx);
        try {
          const store = await openMirror(ctx, { create: true });
          try {
            const pushed = await offline.pushBeforeSync(ctx, connection);
            const { openOffline } = await import('../record/open.js');
            const stores = await openOffline(ctx);
            try {
              const knex = stores.outbox.knex;
              const records = options.records === true || scopes !== undefined || options.reset === true || (await feed.pullsRecords(knex));
              // Catalogs the feed kept last time are not read by the conditional GETs again.
              const state = await readFeedState(knex);
              const { kindsCarried } = await import('../../sync/feed/state.js');
              const carried = records && state.serverHasFeed === '1' ? kindsCarried(state.granted) : [];
              const skipped = RESOURCE_SPECS.filter((s) => s.name !== 'trackedby' && carried.includes(CATALOG_KIND[s.name as keyof typeof CATALOG_KIND]));
              const specs = RESOURCE_SPECS.filter((s) => !skipped.includes(s));
              const display = await syncDisplay(ctx, specs.map((s) => s.name));
              let report;
              try {
                report = await runSync({ transport: connection.transport, server: connection.session.server, username: connection.session.username, store, onEvent: display.onEvent, specs });
              } finally {
                await display.stop();
              }
              // Issue 28: after the catalog pull; at most one request per 200 types (cli/commands/usage-steps.ts).
              await (await import('./usage-steps.js')).refreshUsageStep(ctx, connection, store, report);
              const feedReport = records ? await feed.runFeedStep(ctx, connection, { scopes, reset: options.reset, repair: true }, stores) : null;
              // Server tracks are records too: pulled once the mirror pulls records.
              const tracks = records ? await (await import('./track-steps.js')).runTrackStep(ctx, connection, knex) : null;
              if (feedReport?.mode === 'fallback' && skipped.length) {
                // The feed is gone: the catalogs it carried come from the conditional GETs again.
                const more = await runSync({ transport: connection.transport, server: connection.session.server, username: connection.session.username, store, specs: skipped });
                report = { ...more, startedAt: report.startedAt, resources: [...report.resources, ...more.resources], warnings: [...report.warnings, ...more.warnings] };
              }
              for (const warning of report.warnings) ctx.warn(warning);
              const requests = connection.wire.requests();
              if (ctx.json) {
                const base = syncReportJson(report, connection.wire);
                const withTracks = tracks ? { ...base, tracks } : base;
                printJson(ctx, pushed || feedReport ? { ...withTracks, push: pushed, pull: feedReport ? render.pullLines(feedReport, requests) : null, feed: feedReport ? render.feedJson(feedReport) : null } : withTracks);
              } else {
                const { trackSummary } = await import('./track-steps.js');
                ctx.print(renderSyncReport(report, connection.wire, ctx.out) + offline.offlineSummary(pushed) + (feedReport ? '\n' + render.feedSummary(feedReport, requests, ctx.out) : '') + (tracks ? trackSummary(tracks) : ''));
              }
            } finally {
              await stores.close();
            }
          } finally {
            await store.close();
          }
        } finally {
          await connection.close();
        }
      }),
    );
}
