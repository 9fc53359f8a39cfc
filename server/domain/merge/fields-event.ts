/**
 * An event as merge fields (protocol/merge-fields.ts): `flatten` for the merge and the history,
 * `mine` for the paths an update names, `apply` to write chosen values back.
 */
import { EVENT_DETAILS_PREFIX, detailPath, parseFieldPath } from '../../../protocol/merge-fields.js';
import type { EventInput } from '../events/input.js';
import type { ActivityEvent } from '../model.js';

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());
const millis = (value: unknown): number | null => (typeof value === 'string' ? Date.parse(value) : typeof value === 'number' ? value : null);

export function flattenEvent(event: ActivityEvent): Map<string, unknown> {
  const fields = new Map<string, unknown>([
    ['title', event.title],
    ['time', iso(event.time)],
    ['location', event.latitude === null || event.longitude === null ? null : { latitude: event.latitude, longitude: event.longitude }],
    ['priority', event.priority],
    ['state', event.state],
    ['event_type', event.eventType],
  ]);
  for (const [key, value] of Object.entries(event.eventDetails)) fields.set(detailPath(key), value);
  return fields;
}

/**
 * The paths an update names, with the values `proposed` (the update applied to `current` as a
 * blind write would) has there. `event_details` replaces the whole object, so every key of the
 * sent or the current details is named (an absent key is null: removed).
 */
export function eventMine(input: EventInput, current: ActivityEvent, proposed: ActivityEvent): Map<string, unknown> {
  const all = flattenEvent(proposed);
  const named = new Map<string, unknown>();
  const given: Array<[keyof EventInput, string]> = [['title', 'title'], ['time', 'time'], ['location', 'location'], ['priority', 'priority'], ['state', 'state'], ['eventType', 'event_type']];
  for (const [key, path] of given) if (input[key] !== undefined) named.set(path, all.get(path) ?? null);
  if (input.eventDetails !== undefined) {
    for (const key of new Set([...Object.keys(input.eventDetails), ...Object.keys(current.eventDetails)])) {
      named.set(detailPath(key), all.has(detailPath(key)) ? all.get(detailPath(key)) : null);
    }
  }
  return named;
}

/** `event` with `values` written at their paths (a null detail value removes the key). */
export function applyEventFields(event: ActivityEvent, values: ReadonlyMap<string, unknown>): ActivityEvent {
  const next: ActivityEvent = { ...event, eventDetails: { ...event.eventDetails } };
  for (const [path, value] of values) {
    const parsed = parseFieldPath('event', path);
    if (!parsed) continue;
    if (parsed.part === 'detail') {
      if (value === null || value === undefined) delete next.eventDetails[parsed.key];
      else next.eventDetails[parsed.key] = value;
      continue;
    }
    switch (parsed.field) {
      case 'title': next.title = String(value ?? ''); break;
      case 'time': next.time = millis(value) ?? next.time; break;
      case 'location': {
        const location = value as { latitude: number; longitude: number } | null;
        next.latitude = location?.latitude ?? null;
        next.longitude = location?.longitude ?? null;
        break;
      }
      case 'priority': next.priority = Number(value); break;
      case 'state': next.state = value as ActivityEvent['state']; break;
      case 'event_type': next.eventType = String(value); break;
    }
  }
  return next;
}

/**
 * The update's result after the merge: `current` with the chosen paths of mine. Detail keys
 * written by the update keep the exact value it sent (a null it sent stays a null).
 */
export function mergedEvent(current: ActivityEvent, proposed: ActivityEvent, apply: ReadonlyMap<string, unknown>): ActivityEvent {
  const next = applyEventFields(current, new Map([...apply].filter(([path]) => !path.startsWith(EVENT_DETAILS_PREFIX))));
  for (const path of apply.keys()) {
    if (!path.startsWith(EVENT_DETAILS_PREFIX)) continue;
    const key = path.slice(EVENT_DETAILS_PREFIX.length);
    if (Object.hasOwn(proposed.eventDetails, key)) next.eventDetails[key] = proposed.eventDetails[key];
    else delete next.eventDetails[key];
  }
  return next;
}

export const isDetailPath = (path: string): boolean => path.startsWith(EVENT_DETAILS_PREFIX);
