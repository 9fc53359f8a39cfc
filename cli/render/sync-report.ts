/** The text shown after a sync. */
import type { SyncReport } from '../../sync/engine/run-sync.js';
import type { ChangeSummary } from '../../sync/mirror/store.js';
import type { WireLog } from '../../sync/counting.js';
import type { Style } from '../output/style.js';
import { formatTable } from '../output/table.js';
import { formatBytes } from '../output/time.js';

const OUTCOME: Record<string, string> = { unchanged: 'unchanged', changed: 'changed', not_offered: 'not offered', forbidden: 'forbidden' };

export function changeText(changes: ChangeSummary | null): string {
  if (!changes) return '';
  const parts = (['added', 'updated', 'removed', 'deactivated', 'reactivated'] as const)
    .filter((key) => changes[key].length > 0)
    .map((key) => `${changes[key].length} ${key}`);
  return parts.length ? parts.join(', ') : 'no change';
}

const names = (list: string[]) => (list.length > 5 ? `${list.slice(0, 5).join(', ')} and ${list.length - 5} more` : list.join(', '));

export function renderSyncReport(report: SyncReport, wire: WireLog, style: Style): string {
  const seconds = (Date.parse(report.finishedAt) - Date.parse(report.startedAt)) / 1000;
  const rows = report.resources.map((r) => [
    r.resource,
    r.outcome === 'changed' ? style.green(OUTCOME[r.outcome]!) : r.outcome === 'unchanged' ? OUTCOME[r.outcome]! : style.yellow(OUTCOME[r.outcome]!),
    String(r.items),
    formatBytes(r.bytes),
    r.outcome === 'changed' ? changeText(r.changes) : '',
  ]);
  let text = `Synced with ${report.server} in ${seconds.toFixed(1)} s: ${wire.requests()} requests, ${formatBytes(wire.bytes())} received.\n`;
  text += formatTable(['resource', 'result', 'items', 'received', 'changes'], rows, { right: [2, 3] });
  for (const r of report.resources) {
    if (r.changes?.removed.length) text += `  ${r.resource}: removed (deleted on the server): ${names(r.changes.removed)}\n`;
    if (r.changes?.deactivated.length) text += `  ${r.resource}: deactivated (kept, flagged inactive): ${names(r.changes.deactivated)}\n`;
  }
  return text;
}

/** The report for scripts (snake_case, like the API): with every exchange on the wire. */
export function syncReportJson(report: SyncReport, wire: WireLog) {
  return {
    server: report.server,
    started_at: report.startedAt,
    finished_at: report.finishedAt,
    reset: report.reset,
    resources: report.resources,
    warnings: report.warnings,
    wire: { requests: wire.requests(), bytes: wire.bytes(), exchanges: wire.exchanges },
  };
}
