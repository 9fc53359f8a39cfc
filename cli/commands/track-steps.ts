/**
 * The CLI around pulling server tracks (sync/pull/tracks.ts): the progress line (a terminal
 * only: the status line writes nothing otherwise), the note when the server has no tracks to
 * give (a 403's note says the pulled tracks were deleted), and the summary line. `fieldops sync`
 * calls these once the mirror pulls records.
 */
import type { Knex } from 'knex';
import type { TrackPullReport } from '../../sync/pull/tracks.js';
import type { CommandContext, Connection } from '../context.js';

export async function runTrackStep(ctx: CommandContext, connection: Connection, knex: Knex): Promise<TrackPullReport> {
  const { pullTracks } = await import('../../sync/pull/tracks.js');
  try {
    const report = await pullTracks({
      transport: connection.transport,
      server: connection.session.server,
      knex,
      now: ctx.now,
      onProgress: (pulled) => ctx.status.update(`pulling tracks: ${pulled} ${pulled === 1 ? 'fix' : 'fixes'}`),
    });
    if (report.skipped) ctx.warn(report.skipped);
    else if (report.capped) ctx.warn(`tracks: ${report.pulled} fixes pulled, the most one sync takes; the rest comes with the next sync`);
    return report;
  } finally {
    ctx.status.clear();
  }
}

/** The summary line; `removed` (in --json too) counts the fixes of sources no longer yours to see. */
export function trackSummary(report: TrackPullReport): string {
  if (report.skipped) return '';
  const removed = report.removed > 0 ? `; ${report.removed} ${report.removed === 1 ? 'fix' : 'fixes'} of sources you no longer see deleted from this laptop` : '';
  return `\nTracks: ${report.pulled} new ${report.pulled === 1 ? 'fix' : 'fixes'} of ${report.sources} ${report.sources === 1 ? 'source' : 'sources'}${report.capped ? ' (more waiting: sync again)' : ''}${removed}.`;
}
