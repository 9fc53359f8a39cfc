import type { CatalogItem, Choice, EventCategory, EventType, EventTypeV1, RevisionEntry, Subject } from '../domain/model.js';
import { toIso } from '../db/time.js';

/** `icon_id` is the icon, else the value; `image_url` the icon's absolute URL under /static/. */
export function presentCatalogCommon(item: CatalogItem, origin: string) {
  const iconId = item.icon || item.value;
  return {
    id: item.id,
    value: item.value,
    display: item.display,
    ordernum: item.ordernum,
    icon: item.icon,
    icon_id: iconId,
    image_url: `${origin}/static/sprite-src/${encodeURIComponent(iconId)}.svg`,
    default_priority: item.defaultPriority,
    is_active: item.isActive,
    updated_at: toIso(item.updatedAt),
  };
}

/** The stored schema, raw: `include_schema` never expands choices or `$ref`s. */
export function withSchema<T extends object>(body: T, item: CatalogItem, include: boolean): T & { schema?: unknown } {
  return include ? { ...body, schema: JSON.parse(item.schema) } : body;
}

export function presentRevision(entry: RevisionEntry) {
  return {
    time: toIso(entry.time),
    action: entry.action,
    user: entry.userId ? { id: entry.userId, username: entry.username } : null,
    // CONTRACT §11: the list of changed keys in every profile; their values under `changes`.
    ...(entry.updatedFields ? { updated_fields: Object.keys(entry.updatedFields), changes: entry.updatedFields } : { snapshot: entry.snapshot }),
    sequence: entry.sequence,
    // Issue 28: a restore's or a publish's note (allowed breaks with reasons), only when present.
    ...(entry.note ? { note: entry.note } : {}),
  };
}

export function presentChoice(choice: Choice) {
  return {
    id: choice.id,
    field: choice.field,
    value: choice.value,
    display: choice.display,
    ordernum: choice.ordernum,
    icon: choice.icon,
    is_active: choice.isActive,
    created_at: toIso(choice.createdAt),
    updated_at: toIso(choice.updatedAt),
  };
}

/** `revision` is the fieldops profile's; the earthranger profile strips it (presentation/rules.ts). */
export function presentSubject(subject: Subject) {
  return {
    content_type: 'observations.subject',
    id: subject.id,
    name: subject.name,
    subject_type: subject.subjectType,
    subject_subtype: subject.subjectSubtype,
    is_active: subject.isActive,
    additional: subject.additional,
    created_at: toIso(subject.createdAt),
    updated_at: toIso(subject.updatedAt),
    revision: subject.revision,
  };
}

export function presentEventType(item: EventType, origin: string) {
  return {
    ...presentCatalogCommon(item, origin),
    category: item.category,
    default_state: item.defaultState,
    geometry_type: item.geometryType,
    is_collection: item.isCollection,
    readonly: item.readonly,
    version: '2',
  };
}

export function presentEventCategory(category: EventCategory) {
  return { id: category.id, value: category.value, display: category.display, ordernum: category.ordernum, is_active: category.isActive };
}

/** A category on the v1 paths: `flag` as the v1 list serves it (every category here is the tenant's own). */
export function presentEventCategoryV1(category: EventCategory) {
  return { ...presentEventCategory(category), flag: 'user' as const };
}

/** A v1 event type; its document is the stored template text. */
export function presentEventTypeV1(type: EventTypeV1) {
  return {
    id: type.id,
    value: type.value,
    display: type.display,
    category: type.category,
    default_priority: type.defaultPriority,
    is_active: type.isActive,
    version: '1',
    migrated_to: type.migratedTo,
    schema: type.schemaText,
    updated_at: toIso(type.updatedAt),
  };
}
