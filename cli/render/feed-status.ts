/** The feed's part of `fieldops status`. */
import type { FeedStatus } from '../../sync/feed/status.js';
import { ago } from '../output/time.js';
import type { Style } from '../output/style.js';
import { formatTable } from '../output/table.js';

export function renderFeedStatus(feed: FeedStatus, now: number, style: Style): string {
  const lines: string[] = [];
  if (feed.mode === 'fallback') lines.push(style.yellow('records  older pull (the server has no change feed; deletions do not arrive)'));
  else lines.push(`records  change feed, scopes: ${feed.scopes.length ? feed.scopes.join(', ') : 'default (open patrols, last 30 days, subjects, catalogs)'}; last checkpoint ${feed.checkpoint_at ? ago(feed.checkpoint_at, now) : 'never'}`);
  if (feed.per_scope.length) {
    const rows = feed.per_scope.map((s) => [s.scope, s.server === null ? '-' : String(s.server), String(s.local), s.server !== null && s.server !== s.local ? style.yellow('differs') : '']);
    lines.push(formatTable(['scope', 'server (checkpoint)', 'this laptop', ''], rows, { right: [1, 2] }));
  }
  return lines.join('\n');
}
