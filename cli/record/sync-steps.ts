/**
 * What `fieldops sync` does around the catalog sync for the offline write path: push the outbox
 * first (so what is pulled includes it), then, once this mirror pulls records at all (`--records`
 * or `fieldops pull` once), pull patrols, events and subjects incrementally after the catalogs.
 * NOTE: a mirror that never pulled records does not start to, so a catalog-only laptop's sync of
 * an unchanged server still costs one 304 per catalog and nothing else.
 * A push that stops (network, 5xx) is a warning here: the catalogs are still synced, the records
 * stay queued for the next sync or `fieldops push`.
 */
import fs from 'node:fs';
import type { PushReport } from '../../sync/push/run-push.js';
import type { CommandContext, Connection } from '../context.js';
import { CommandExit, EXIT } from '../errors.js';
import { interruptedLine } from '../render/push-report.js';
import { mirrorPath } from '../settings.js';
import { openOffline } from './open.js';
import { heldFailure, pushMine } from './push.js';

export async function pushBeforeSync(ctx: CommandContext, connection: Connection): Promise<PushReport | null> {
  if (!fs.existsSync(mirrorPath(ctx.settings, ctx.profile))) return null;
  const stores = await openOffline(ctx);
  try {
    if ((await stores.outbox.counts()).pending === 0) return null;
    const { report, held, me } = await pushMine(ctx, connection, stores);
    if (held.length > 0) {
      const why = heldFailure(held, me);
      ctx.warn(`${why.message}: they stay queued for them (${why.hint})`);
    }
    if (report.total === 0) return null;
    if (report.interrupted) {
      ctx.info(interruptedLine(report));
      throw new CommandExit(EXIT.interrupted);
    }
    if (report.stopped) ctx.warn(`push stopped: ${report.stopped}; ${report.remaining} records still queued`);
    if (report.rejected.length || report.conflicts.length) ctx.warn(`push: ${report.rejected.length} rejected, ${report.conflicts.length} in conflict (\`fieldops outbox\` lists them)`);
    return report;
  } finally {
    await stores.close();
  }
}

/** The line to append to the sync report ('' when nothing was pushed). */
export function offlineSummary(push: PushReport | null): string {
  return push ? `\npushed ${push.sent} of ${push.total} queued record${push.total === 1 ? '' : 's'}${push.remaining ? ` (${push.remaining} still queued)` : ''}` : '';
}
