/**
 * Where each record kind of the feed lives in the mirror, and the row it becomes. Patrols,
 * events and subjects use the pulled tables' mapping (sync/pull/pulled.ts); the catalog kinds
 * use the conditional-GET sync's mapping (sync/mirror/rows.ts), so every reader of the mirror
 * sees the same columns whichever way a row arrived.
 */
import type { RecordKind } from '../../protocol/sync.js';
import { failure } from '../errors.js';
import { itemRow } from '../mirror/rows.js';
import type { ApiRecord, ItemResource } from '../mirror/store.js';
import { pulledRow, recordHash, type PulledResource } from '../pull/pulled.js';

export const KIND_TABLE: Record<RecordKind, string> = {
  event: 'pulled_events',
  patrol: 'pulled_patrols',
  subject: 'pulled_subjects',
  patrol_type: 'patrol_types',
  event_type: 'event_types',
  choice: 'choices',
  event_category: 'pulled_event_categories',
};

const PULLED: Partial<Record<RecordKind, PulledResource>> = { event: 'events', patrol: 'patrols', subject: 'subjects' };
const ITEMS: Partial<Record<RecordKind, ItemResource>> = { patrol_type: 'patrol_types', event_type: 'event_types', choice: 'choices' };

/** The scope-key family whose grant means the feed carries (and prunes) a kind. */
export function kindFamily(kind: RecordKind): string {
  if (kind === 'event') return 'ev:';
  if (kind === 'patrol') return 'pa:';
  if (kind === 'subject') return 'su:';
  return `cat:${kind === 'event_category' ? 'event_categories' : kind === 'choice' ? 'choices' : `${kind}s`}`;
}

type Rec = Record<string, unknown>;

/** The mirror row of a put change; a record the row cannot be made of is the server's fault. */
export function rowOf(kind: RecordKind, id: string, record: Rec, etag: string | null, version: number): Record<string, unknown> {
  const pulled = PULLED[kind];
  if (pulled) return pulledRow(pulled, id, record, etag, version);
  if (typeof record.value !== 'string') throw failure('server', `the server sent a ${kind} (${id}) without a \`value\``, 'tell the server administrator');
  const items = ITEMS[kind];
  if (items) return { ...itemRow(items, { ...record, id } as ApiRecord), id, version };
  const text = JSON.stringify(record);
  return {
    id,
    value: record.value,
    display: typeof record.display === 'string' ? record.display : '',
    ordernum: typeof record.ordernum === 'number' && Number.isFinite(record.ordernum) ? record.ordernum : null,
    is_active: record.is_active !== false,
    updated_at: typeof record.updated_at === 'string' ? record.updated_at : null,
    record: text,
    hash: recordHash(text),
    version,
  };
}

/**
 * Columns of a held row that differ from what its own `record` gives (a row edited by hand or
 * by another program); empty when the row is what the feed wrote.
 */
export function tamperedColumns(kind: RecordKind, row: Record<string, any>): string[] {
  let record: Rec;
  try {
    record = JSON.parse(row.record);
  } catch {
    return ['record'];
  }
  const expected = rowOf(kind, row.id, record, row.etag ?? null, Number(row.version));
  const out: string[] = [];
  // The catalog tables hash the parsed record, the pulled ones the stored text: both round-trip.
  if (row.hash != null && row.hash !== expected.hash) out.push('hash');
  for (const [column, value] of Object.entries(expected)) {
    if (['id', 'etag', 'version', 'hash', 'record'].includes(column)) continue;
    // A record without its own revision (an older server) took the change's (sync/feed/apply.ts).
    if (column === 'revision' && value === null) continue;
    const held = row[column];
    const same = typeof value === 'boolean' ? Boolean(held) === value : (held ?? null) === (value ?? null);
    if (!same) out.push(column);
  }
  return out;
}
