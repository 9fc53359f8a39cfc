/** `fieldops push` results: plain text for people, JSON for scripts. */
import type { PushReport } from '../../sync/push/run-push.js';
import type { Style } from '../output/style.js';

/**
 * The report on stdout. A push that stopped (server unreachable, interrupted) gets no check mark:
 * its error on stderr says what happened; stdout then only lists what was done before the stop.
 */
export function renderPushReport(report: PushReport, style: Style): string {
  const lines: string[] = [];
  if (report.total === 0) return 'Nothing to push: the outbox is empty.';
  const requests = `${report.requests} request${report.requests === 1 ? '' : 's'}`;
  const notes = [report.alreadyThere ? `${report.alreadyThere} already on the server` : '', report.merged ? `${report.merged} merged with changes made on the server` : ''].filter(Boolean);
  const already = notes.length ? ` (${notes.join('; ')})` : '';
  if (!report.stopped) lines.push(`${style.green('✔')} ${report.sent} sent${already} in ${requests}`);
  else if (report.sent > 0) lines.push(`${report.sent} sent${already} before the push stopped`);
  for (const r of report.rejected) lines.push(`${style.red('rejected')} ${r.id} ${r.kind}${r.source ? ` (${r.source})` : ''}: ${r.reason}`);
  for (const s of report.settled) lines.push(`${style.yellow('sent')} ${s.id} ${s.kind}: ${s.reason}`);
  for (const c of report.conflicts) lines.push(`${style.yellow('conflict')} ${c.id} ${c.kind}: ${c.reason}`);
  if (report.conflicts.length) lines.push('resolve conflicts with `fieldops outbox resolve <id> [--field F] --mine|--theirs` (`fieldops outbox show <id>` shows base, mine and theirs)');
  if (report.remaining && !report.stopped) lines.push(`${report.remaining} still queued`);
  return lines.join('\n');
}

/** The line a Ctrl-C during a push ends with (on stderr; exit 130). */
export const interruptedLine = (report: PushReport) =>
  `interrupted: ${report.sent} sent, ${report.remaining} still queued (run \`fieldops push\` again)`;

export const pushReportJson = (report: PushReport) => ({
  total: report.total,
  sent: report.sent,
  already_there: report.alreadyThere,
  merged: report.merged,
  settled: report.settled,
  rejected: report.rejected,
  conflicts: report.conflicts,
  requests: report.requests,
  stopped: report.stopped,
  interrupted: report.interrupted,
  remaining: report.remaining,
});
