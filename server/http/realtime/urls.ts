import type { RealtimeKind } from './hub.js';

/**
 * The absolute URLs of a pushed object, by kind: `url`, `image_url`, the map feature's icon, file
 * `url`s and related events' URLs of an event, file `url`s
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

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** An event's map feature: its icon's `image` and `icon.iconUrl` (issue 27). */
function geojsonUrls(feature: unknown, rewrite: Rewrite): unknown {
  if (!isObject(feature) || !isObject(feature.properties)) return feature;
  const properties = { ...feature.properties };
  if ('image' in properties) properties.image = rewrite(properties.image);
  if (isObject(properties.icon) && 'iconUrl' in properties.icon) properties.icon = { ...properties.icon, iconUrl: rewrite(properties.icon.iconUrl) };
  return { ...feature, properties };
}

/** An event's own URLs and those of the events it is related to (`related_event`, one level: it carries no relationships). */
function eventUrls(data: Record<string, unknown>, rewrite: Rewrite): Record<string, unknown> {
  const related = (list: unknown) => (Array.isArray(list) ? list.map((item: unknown) => (isObject(item) ? { ...item, ...('url' in item ? { url: rewrite(item.url) } : {}), ...(isObject(item.related_event) ? { related_event: eventUrls(item.related_event, rewrite) } : {}) } : item)) : list);
  return {
    ...data,
    ...('url' in data ? { url: rewrite(data.url) } : {}),
    ...('image_url' in data ? { image_url: rewrite(data.image_url) } : {}),
    ...('geojson' in data ? { geojson: geojsonUrls(data.geojson, rewrite) } : {}),
    ...('files' in data ? { files: each(data.files, 'url', rewrite) } : {}),
    ...('contains' in data ? { contains: related(data.contains) } : {}),
    ...('is_contained_in' in data ? { is_contained_in: related(data.is_contained_in) } : {}),
  };
}

const FIELDS: Record<RealtimeKind, (data: Record<string, unknown>, rewrite: Rewrite) => Record<string, unknown>> = {
  event: eventUrls,
  patrol: (data, rewrite) => ({
    ...data,
    ...('files' in data ? { files: each(data.files, 'url', rewrite) } : {}),
    ...('patrol_segments' in data ? { patrol_segments: each(data.patrol_segments, 'image_url', rewrite) } : {}),
  }),
  // A message carries no server-built URL.
  message: (data) => data,
};

/** The object with its absolute URLs reduced to paths (`http://host:port/api/...` → `/api/...`). */
export function withoutOrigin(kind: RealtimeKind, data: Record<string, unknown>): Record<string, unknown> {
  return FIELDS[kind](data, (url) => (typeof url === 'string' ? url.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, '') : url));
}

/** The object with its URL paths made absolute on `origin` (a receiving session's). */
export function withOrigin(kind: RealtimeKind, data: Record<string, unknown>, origin: string): Record<string, unknown> {
  return FIELDS[kind](data, (url) => (typeof url === 'string' && url.startsWith('/') ? origin + url : url));
}
