import type { RealtimeKind } from './hub.js';

/**
 * The absolute URLs of a pushed object, by kind: `url` and file `url`s of an event, file `url`s
 * and segment `image_url`s of a patrol (as server/http/handlers/events-presenters.ts and
 * server/http/presenters-patrols.ts build them, on the writer's request origin).
 *
 * Issue 24: a change is published without them (paths only: nothing of the writer's `Host`
 * travels), and each receiving session's copy is given its own handshake's origin, as its own
 * REST reads would be. Only these server-built fields are touched, never `event_details`.
 */
type Rewrite = (url: unknown) => unknown;

const each = (list: unknown, field: string, rewrite: Rewrite): unknown =>
  Array.isArray(list) ? list.map((item: unknown) => (item && typeof item === 'object' && field in item ? { ...item, [field]: rewrite((item as Record<string, unknown>)[field]) } : item)) : list;

const FIELDS: Record<RealtimeKind, (data: Record<string, unknown>, rewrite: Rewrite) => Record<string, unknown>> = {
  event: (data, rewrite) => ({ ...data, ...('url' in data ? { url: rewrite(data.url) } : {}), ...('files' in data ? { files: each(data.files, 'url', rewrite) } : {}) }),
  patrol: (data, rewrite) => ({
    ...data,
    ...('files' in data ? { files: each(data.files, 'url', rewrite) } : {}),
    ...('patrol_segments' in data ? { patrol_segments: each(data.patrol_segments, 'image_url', rewrite) } : {}),
  }),
};

/** The object with its absolute URLs reduced to paths (`http://host:port/api/...` → `/api/...`). */
export function withoutOrigin(kind: RealtimeKind, data: Record<string, unknown>): Record<string, unknown> {
  return FIELDS[kind](data, (url) => (typeof url === 'string' ? url.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, '') : url));
}

/** The object with its URL paths made absolute on `origin` (a receiving session's). */
export function withOrigin(kind: RealtimeKind, data: Record<string, unknown>, origin: string): Record<string, unknown> {
  return FIELDS[kind](data, (url) => (typeof url === 'string' && url.startsWith('/') ? origin + url : url));
}
