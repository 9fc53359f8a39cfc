/**
 * The sync's usage-summary step (issue 28), after the catalog pull: keeps the summaries of the
 * mirrored v2 event types for `fieldops lint --against mirror`. Never fails the sync: a server
 * without the route is skipped silently (noted when LOG_LEVEL is debug), another failure is a warning.
 */
import type { SyncReport } from '../../sync/engine/run-sync.js';
import type { MirrorStore } from '../../sync/mirror/store.js';
import type { UsageRefresh } from '../../sync/usage/refresh.js';
import type { CommandContext, Connection } from '../context.js';

export async function refreshUsageStep(ctx: CommandContext, connection: Connection, store: MirrorStore, report: SyncReport): Promise<UsageRefresh | null> {
  const { refreshUsageSummaries } = await import('../../sync/usage/refresh.js');
  const typesChanged = report.resources.some((r) => r.resource === 'event_types' && r.outcome === 'changed');
  try {
    const result = await refreshUsageSummaries({ transport: connection.transport, server: connection.session.server, store, now: ctx.now, typesChanged });
    if (result.status === 'not_offered' && /^(debug|trace)$/i.test(ctx.io.env.LOG_LEVEL ?? '')) ctx.info('debug: the server offers no usage summaries (404); skipped');
    return result;
  } catch (error) {
    ctx.warn(`usage summaries not refreshed: ${(error as Error).message} (\`fieldops lint --against mirror\` uses the ones kept before)`);
    return null;
  }
}
