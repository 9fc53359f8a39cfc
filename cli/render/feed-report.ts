/** What `fieldops pull`, `sync` and `verify` say about a run of the change feed. */
import type { FeedReport } from '../../sync/feed/run-feed.js';
import type { PullReport } from '../../sync/pull/run-pull.js';
import type { Style } from '../output/style.js';

const PER_RESOURCE = [['patrols', 'patrol'], ['events', 'event'], ['subjects', 'subject']] as const;

/**
 * The per-resource lines of `pull --json` (`pull`: patrols, events, subjects, as the older pull
 * gave them): `received` changes of that kind, `changed` rows written or deleted. `requests` is
 * the whole run's, on the first line only.
 */
export function pullLines(report: FeedReport, requests: number): PullReport[] {
  if (report.fallback) return report.fallback;
  return PER_RESOURCE.map(([resource, kind], index) => {
    const tally = report.counts.byKind[kind] ?? { put: 0, deleted: 0 };
    return { resource, received: tally.put + tally.deleted, changed: tally.put + tally.deleted, requests: index === 0 ? requests : 0, since: null };
  });
}

export function feedJson(report: FeedReport) {
  return {
    mode: report.mode,
    resets: report.resets,
    scope_change: report.scopeChange,
    pages: report.pages,
    received: report.received,
    written: report.counts.put,
    deleted: report.counts.deleted,
    ignored_older: report.counts.ignored,
    swept: report.swept,
    by_kind: report.counts.byKind,
    checkpoint: report.checkpoint,
    mismatched: report.mismatched.map((m) => ({ scope: m.server.key, server: { count: m.server.count, checksum: m.server.checksum }, local: { count: m.local.count, checksum: m.local.checksum } })),
    repairs: report.repairs,
    keys: report.keys.length,
    granted: report.granted,
    denied: report.denied,
    warnings: report.warnings,
  };
}

const CHECKPOINT_TEXT: Record<FeedReport['checkpoint'], string> = {
  verified: 'verified against the server\'s checkpoint',
  repaired: 'repaired and verified',
  mismatch: 'NOT matching the server',
  not_verified: 'not verified yet (the server was busy writing)',
  none: 'no checkpoint from the server',
};

export function feedSummary(report: FeedReport, requests: number, style: Style): string {
  if (report.mode === 'fallback') {
    const pull = report.fallback ?? [];
    return `pulled ${pull.map((p) => `${p.changed} ${p.resource}`).join(', ')} new or changed since the last pull (older pull: the server has no change feed; ${requests} requests)`;
  }
  const lines: string[] = [];
  for (const reset of report.resets) lines.push(style.yellow(`reset: ${reset}`));
  if (report.scopeChange) lines.push(scopeChangeText(report.scopeChange));
  const kinds = Object.entries(report.counts.byKind).map(([kind, t]) => `${kind} ${t.put}${t.deleted ? `/-${t.deleted}` : ''}`);
  lines.push(
    `pulled ${report.received} change${report.received === 1 ? '' : 's'} in ${report.pages} page${report.pages === 1 ? '' : 's'} (${requests} request${requests === 1 ? '' : 's'}): ${report.counts.put} written, ${report.counts.deleted} deleted` +
      `${report.counts.ignored ? `, ${report.counts.ignored} older ignored` : ''}${report.swept ? `, ${report.swept} no longer in scope dropped` : ''}${kinds.length ? ` [${kinds.join(', ')}]` : ''}`,
  );
  const text = CHECKPOINT_TEXT[report.checkpoint];
  lines.push(`mirror ${report.checkpoint === 'verified' || report.checkpoint === 'repaired' ? style.green(text) : style.yellow(text)}`);
  for (const r of report.repairs) lines.push(`  repaired ${r.scope}: ${r.missing} missing, ${r.stale} stale, ${r.extra} extra${r.repaired ? '' : style.yellow(` (still differing${r.note ? `: ${r.note}` : ''})`)}`);
  for (const d of report.denied) lines.push(style.yellow(`  not granted: ${d.key}${d.reason ? ` (${d.reason})` : ''}`));
  return lines.join('\n');
}

/** `scopes changed: +2 keys, −2 keys (no reset)`: the granted keys a resumed cursor gained and lost. */
export function scopeChangeText(change: { added: readonly string[]; removed: readonly string[] }): string {
  const n = (count: number) => `${count} key${count === 1 ? '' : 's'}`;
  return `scopes changed: +${n(change.added.length)}, \u2212${n(change.removed.length)} (no reset)`;
}
