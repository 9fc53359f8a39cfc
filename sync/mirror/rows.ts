/** Row mappers between the mirror's tables (snake_case) and the store's types (camelCase). */
import { createHash } from 'node:crypto';
import type { ApiRecord, Checkpoint, CheckpointStatus, ItemResource, MirrorItem, ResourceName } from './store.js';

export const contentHash = (value: unknown) => createHash('sha256').update(JSON.stringify(value)).digest('hex');

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);
const number = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null);

/** The row of one record: the sortable columns, the record itself, its hash. */
export function itemRow(resource: ItemResource, record: ApiRecord): Record<string, unknown> {
  const row: Record<string, unknown> = {
    id: record.id,
    value: record.value,
    display: text(record.display) ?? '',
    ordernum: number(record.ordernum),
    is_active: record.is_active !== false,
    updated_at: text(record.updated_at),
    record: JSON.stringify(record),
    hash: contentHash(record),
  };
  if (resource === 'choices') row.field = text(record.field) ?? '';
  else row.default_priority = number(record.default_priority) ?? 0;
  if (resource === 'event_types') row.category = categoryOf(record.category);
  return row;
}

// NOTE: v2 event types carry `category` as a slug; exports seen in the wild carry `{value}`.
function categoryOf(category: unknown): string | null {
  if (typeof category === 'string') return category;
  if (category && typeof category === 'object' && typeof (category as { value?: unknown }).value === 'string') return (category as { value: string }).value;
  return null;
}

export function toMirrorItem(row: Record<string, any>): MirrorItem {
  return {
    id: row.id,
    value: row.value,
    display: row.display,
    ordernum: row.ordernum ?? null,
    isActive: Boolean(row.is_active),
    updatedAt: row.updated_at ?? null,
    record: JSON.parse(row.record),
  };
}

/** How a record is named in change summaries: a type by its value, a choice by `field/value`. */
export function itemLabel(resource: ItemResource, row: { value: string; field?: string | null }): string {
  return resource === 'choices' ? `${row.field ?? ''}/${row.value}` : row.value;
}

export function checkpointRow(checkpoint: Checkpoint): Record<string, unknown> {
  return {
    resource: checkpoint.resource,
    status: checkpoint.status,
    etag: checkpoint.etag,
    last_modified: checkpoint.lastModified,
    synced_at: checkpoint.syncedAt,
    changed_at: checkpoint.changedAt,
    item_count: checkpoint.itemCount,
    pages: JSON.stringify(checkpoint.pages),
  };
}

export function toCheckpoint(row: Record<string, any>): Checkpoint {
  return {
    resource: row.resource as ResourceName,
    status: row.status as CheckpointStatus,
    etag: row.etag ?? null,
    lastModified: row.last_modified ?? null,
    syncedAt: row.synced_at,
    changedAt: row.changed_at ?? null,
    itemCount: Number(row.item_count ?? 0),
    pages: JSON.parse(row.pages ?? '[]'),
  };
}
