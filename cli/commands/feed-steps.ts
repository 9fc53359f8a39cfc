/**
 * The CLI around the change feed (sync/feed/): building the client from the connection, the
 * progress line, the fallback to the older pull, and whether a mirror pulls records at all.
 * `fieldops pull`, `sync` and `verify` call these; they know nothing of SQL.
 */
import type { Knex } from 'knex';
import { FeedClient } from '../../sync/feed/client.js';
import type { FeedReport } from '../../sync/feed/run-feed.js';
import { sleep } from '../../sync/retry.js';
import type { CommandContext, Connection } from '../context.js';
import { openOffline, type OfflineStores } from '../record/open.js';

export interface FeedStepOptions {
  scopes?: string[];
  reset?: boolean;
  repair: boolean;
}

export function feedClient(ctx: CommandContext, connection: Connection): FeedClient {
  return new FeedClient({ transport: connection.transport, server: connection.session.server, attempts: ctx.settings.retries, baseDelayMs: ctx.settings.retryDelayMs });
}

/** True once a mirror pulls records (the feed or the older pull ran on it). */
export async function pullsRecords(knex: Knex): Promise<boolean> {
  return Boolean((await knex('feed_state').whereIn('key', ['cursor', 'scopes']).first()) ?? (await knex('pull_checkpoints').first()));
}

/** Runs the feed on the profile's mirror (opened here); warnings are printed as they are known. */
export async function runFeedStep(ctx: CommandContext, connection: Connection, options: FeedStepOptions, stores?: OfflineStores): Promise<FeedReport> {
  const [{ runFeed }, { runPull }, { fetchMe }] = await Promise.all([import('../../sync/feed/run-feed.js'), import('../../sync/pull/run-pull.js'), import('../../sync/auth/login.js')]);
  const own = stores ?? (await openOffline(ctx));
  try {
    const knex = own.outbox.knex;
    const report = await runFeed({
      knex,
      client: feedClient(ctx, connection),
      server: connection.session.server,
      username: connection.session.username,
      scopes: options.scopes,
      reset: options.reset,
      repair: options.repair,
      userId: async () => (await fetchMe(connection.transport, connection.session.server)).id ?? null,
      fallback: () => runPull({ transport: connection.transport, server: connection.session.server, knex, now: ctx.now }),
      now: ctx.now,
      wait: (ms) => sleep(ms),
      onProgress: (p) => ctx.status.update(p.phase === 'pulling' ? `pulling: ${p.pages} page${p.pages === 1 ? '' : 's'}, ${p.received} changes` : p.phase === 'settling' ? 'waiting for the server to finish writing…' : 'repairing scopes that differ from the server…'),
    });
    ctx.status.clear();
    for (const warning of report.warnings) ctx.warn(warning);
    return report;
  } finally {
    if (!stores) await own.close();
  }
}
