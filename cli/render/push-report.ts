/** `fieldops push` results: plain text for people, JSON for scripts. */
import type { PushReport } from '../../sync/push/run-push.js';
import type { Style } from '../output/style.js';

export function renderPushReport(report: PushReport, style: Style): string {
  const lines: string[] = [];
  if (report.total === 0) return 'Nothing to push: the outbox is empty.';
  lines.push(`${style.green('✔')} ${report.sent} sent${report.alreadyThere ? ` (${report.alreadyThere} already on the server)` : ''} in ${report.requests} request${report.requests === 1 ? '' : 's'}`);
  for (const r of report.rejected) lines.push(`${style.red('rejected')} ${r.id} ${r.kind}${r.source ? ` (${r.source})` : ''}: ${r.reason}`);
  for (const c of report.conflicts) lines.push(`${style.yellow('conflict')} ${c.id} ${c.kind}: ${c.reason}`);
  if (report.conflicts.length) lines.push('resolve conflicts with `fieldops outbox resolve <id> --mine|--theirs` (`fieldops outbox show <id>` shows both versions)');
  if (report.remaining) lines.push(`${report.remaining} still queued`);
  return lines.join('\n');
}

export const pushReportJson = (report: PushReport) => ({
  total: report.total,
  sent: report.sent,
  already_there: report.alreadyThere,
  rejected: report.rejected,
  conflicts: report.conflicts,
  requests: report.requests,
  stopped: report.stopped,
  remaining: report.remaining,
});
