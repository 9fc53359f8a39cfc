/**
 * Issue 28: `fieldops sync` keeps the usage summaries of the mirrored v2 event types, so
 * `fieldops lint --against mirror` works offline. Run after the catalog pull; one request per
 * USAGE_BATCH types. To keep an unchanged sync at one 304 per resource (docs/sync.md), the
 * summaries are asked for only when the event types changed in this sync, or when the last ask
 * is older than REFRESH_AFTER_MS (a server without the route is asked again no sooner either).
 */
import type { Transport } from '../http.js';
import type { MirrorStore } from '../mirror/store.js';
import { fetchUsageSummaries } from './remote.js';

export const REFRESH_AFTER_MS = 10 * 60_000;

export type UsageRefresh =
  | { status: 'kept'; types: number; requests: number }
  | { status: 'not_offered'; requests: number }
  | { status: 'fresh' | 'no_types'; requests: 0 };

export async function refreshUsageSummaries(options: { transport: Transport; server: string; store: MirrorStore; now: () => number; typesChanged: boolean }): Promise<UsageRefresh> {
  const { store, now } = options;
  const checked = await store.usageCheckedAt();
  if (!options.typesChanged && checked !== null && now() - Date.parse(checked) < REFRESH_AFTER_MS) return { status: 'fresh', requests: 0 };
  const values = (await store.items('event_types')).map((item) => item.value);
  if (values.length === 0) return { status: 'no_types', requests: 0 };
  const answer = await fetchUsageSummaries(options.transport, options.server, values);
  const at = new Date(now()).toISOString();
  if (!answer.offered) {
    await store.keepUsageSummaries({ summaries: [], fetchedAt: at, etag: null, checkedAt: at });
    return { status: 'not_offered', requests: 1 };
  }
  await store.keepUsageSummaries({ summaries: answer.summaries, fetchedAt: at, etag: answer.etag, checkedAt: at });
  return { status: 'kept', types: answer.summaries.length, requests: answer.requests };
}
