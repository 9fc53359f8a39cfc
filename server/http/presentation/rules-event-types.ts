/**
 * v2 event types as the original lists them (issue 27): with `url` (where the type is),
 * `resolve_time` and `auto_resolve` (accepted and not stored here: never set, so `null` and
 * `false`). The origin of `url` is the one the item's `image_url` was built with (the request's,
 * proxy rules applied), so the two always agree.
 *
 * NOTE: `has_events_assigned` is not served yet: it needs an events lookup per list that the
 * list's validators (ETag) do not cover; no client of the original reads it.
 */
type Entry = Record<string, unknown>;

export function originalEventType(item: unknown): unknown {
  if (item === null || typeof item !== 'object' || Array.isArray(item)) return item;
  const entry = item as Entry;
  let origin = '';
  try {
    origin = new URL(String(entry.image_url)).origin;
  } catch {
    // No image_url: a root-relative url.
  }
  return {
    ...entry,
    resolve_time: entry.resolve_time ?? null,
    auto_resolve: entry.auto_resolve ?? false,
    url: `${origin}/api/v2.0/activity/eventtypes/${encodeURIComponent(String(entry.value ?? ''))}`,
  };
}

export function originalEventTypes(payload: unknown): unknown {
  return Array.isArray(payload) ? payload.map(originalEventType) : payload;
}
