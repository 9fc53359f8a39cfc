import { BodyReader } from '../catalog/fields.js';
import { COMMON_READ_ONLY, COMMON_WRITABLE, presentOnly, readCommonFields } from '../catalog/input.js';
import type { CatalogKind } from '../catalog/kind.js';
import type { EventType } from '../model.js';
import { InputError } from '../errors.js';

const STATES = ['new', 'active', 'resolved'] as const;
const GEOMETRIES = ['Point', 'Polygon'] as const;

/** Reads a v2 event type body: the common catalog fields plus the event attributes. */
export function readEventTypeBody(body: unknown, mode: 'create' | 'replace' | 'patch'): Partial<EventType> {
  const reader = BodyReader.of(body);
  reader.rejectUnknown(
    [...COMMON_WRITABLE, 'category', 'default_state', 'geometry_type', 'is_collection', 'readonly'],
    // Issue 27: the original's `resolve_time` and `auto_resolve` are accepted and ignored (not stored:
    // nothing here resolves events on a timer), with what it serves (`url`, `has_events_assigned`).
    [...COMMON_READ_ONLY, 'version', 'resolve_time', 'auto_resolve', 'url', 'has_events_assigned'],
  );
  if (reader.has('version') && reader.body.version !== '2' && reader.body.version !== 2) {
    reader.add('version', { code: 'invalid', message: 'Only version "2" event types live here.', hints: ['v1 event types belong under /api/v1.0/activity/events/eventtypes.'] });
  }
  const fields: Partial<EventType> = {
    ...readCommonFields(reader, mode),
    category: reader.string('category', { max: 50, pattern: /^[A-Za-z0-9_-]*$/, patternHint: 'A category slug: letters, digits, - and _.' }),
    defaultState: reader.oneOf('default_state', STATES),
    geometryType: reader.oneOf('geometry_type', GEOMETRIES),
    isCollection: reader.boolean('is_collection'),
    readonly: reader.boolean('readonly'),
  };
  reader.finish();
  return presentOnly(fields);
}

/**
 * Values a v2 event type cannot take: literal routes beside `/api/v2.0/activity/eventtypes/:key`
 * (`usage`, `schemas`, `migrate`) would shadow that type's detail. The router matches paths
 * case-insensitively, so the values are too.
 */
export const RESERVED_EVENT_TYPE_VALUES: readonly string[] = ['usage', 'schemas', 'migrate'];

/**
 * 400 `reserved` when `value` is one of them. Checked where a value is set (create, a value
 * change, the v1 → v2 migration, a restore), never against a type that already holds one.
 */
export function assertValueNotReserved(value: string): void {
  if (!RESERVED_EVENT_TYPE_VALUES.includes(value.toLowerCase())) return;
  throw InputError.field('value', 'reserved', `"${value}" is reserved: /api/v2.0/activity/eventtypes/${value.toLowerCase()} is a route of its own.`, [
    'Choose another value (for a v1 type to migrate, rename it under /api/v1.0/activity/events/eventtypes first).',
  ]);
}

/** The v2 event type catalog (CONTRACT §5): its list ETag also moves when any choice changes. */
export const eventTypeKind: CatalogKind<EventType> = {
  catalog: 'eventtypes',
  label: 'event type',
  repository: (repos) => repos.eventTypes,
  permissions: { view: ['view_eventtype'], add: 'add_eventtype', change: 'change_eventtype', delete: 'delete_eventtype' },
  readBody: readEventTypeBody,
  newItem: (base, fields) => ({
    ...base,
    category: fields.category ?? '',
    defaultState: fields.defaultState ?? 'new',
    geometryType: fields.geometryType ?? 'Point',
    isCollection: fields.isCollection ?? false,
    readonly: fields.readonly ?? false,
  }),
  tracked: [
    { field: 'value', apiName: 'value' },
    { field: 'display', apiName: 'display' },
    { field: 'category', apiName: 'category' },
    { field: 'icon', apiName: 'icon' },
    { field: 'defaultPriority', apiName: 'default_priority' },
    { field: 'defaultState', apiName: 'default_state' },
    { field: 'geometryType', apiName: 'geometry_type' },
    { field: 'isCollection', apiName: 'is_collection' },
    { field: 'isActive', apiName: 'is_active' },
    { field: 'readonly', apiName: 'readonly' },
    { field: 'schema', apiName: 'schema' },
    { field: 'ordernum', apiName: 'ordernum' },
  ],
  listDependsOn: ['choices'],
  // The original's `has_events_assigned` (issue 27): a type some event was recorded with.
  usage: (repos, tenantId) => repos.eventTypes.valuesWithEvents(tenantId),
  async check(repos, tenantId, item) {
    // A new item, or a value that changes (the stored row, read in the write's transaction, by id).
    const stored = await repos.eventTypes.find(tenantId, item.id);
    if (!stored || stored.value !== item.value) assertValueNotReserved(item.value);
    if (item.category && !(await repos.eventCategories.find(tenantId, item.category))) {
      throw InputError.field('category', 'invalid_choice', `No event category "${item.category}".`, ['Create it at /api/v2.0/activity/eventcategories, or leave category empty.']);
    }
  },
};
