import { setImmediate as yieldLoop } from 'node:timers/promises';
import type { Clock } from '../../db/time.js';
import { toIso } from '../../db/time.js';
import { type RequestContext, requirePermission } from '../context.js';
import type { Repositories, Store } from '../ports.js';
import { type EventListQuery, resolveEventFilter } from './filters.js';
import type { EventListFilter, EventRecord, EventTypeFacts } from './model.js';
import { fallbackFacts } from './views.js';

/** Rows read per query: each batch is one keyset query, then the event loop is let go. */
export const EXPORT_BATCH = 1000;
/** At most this many (type, detail key) columns: a tenant's catalog, not its data, bounds them. */
const MAX_DETAIL_COLUMNS = 2000;

const COMMON = ['Serial Number', 'Id', 'Event Type', 'Event Category', 'Title', 'Time', 'State', 'Priority', 'Latitude', 'Longitude', 'Reported By', 'Created At', 'Updated At'];

/** One column set of a type: its details' keys and their titles. */
interface TypeColumns {
  value: string;
  keys: string[];
  headers: string[];
}

/** An export ready to stream: the header row, then the rows, read in batches as they are pulled. */
export interface EventExport {
  filename: string;
  header: string[];
  rows: () => AsyncGenerator<Array<string | number | null>>;
}

/**
 * The events export (issue 27 §4, er-client `get_events_export`): the list's filter (filters.ts),
 * the common columns, then one column set per event type present (the keys its events'
 * `event_details` hold, titled from the type's schema where it gives a title, else the key),
 * headed `<type display>: <title>`. Rows are read in keyset batches of EXPORT_BATCH (never the
 * whole result in memory) and the event loop is yielded between batches. Needs export_event.
 * Knows no HTTP and no CSV: the handler writes the rows.
 */
export class EventExportService {
  constructor(protected readonly deps: { store: Store; clock: Clock }) {}

  async open(ctx: RequestContext, query: EventListQuery): Promise<EventExport> {
    const { tenantId } = requirePermission(ctx, 'export_event');
    const { repos } = this.deps.store;
    const filter = await resolveEventFilter(repos, tenantId, query);
    const keys = filter ? await repos.events.detailKeys(tenantId, filter, MAX_DETAIL_COLUMNS) : new Map<string, string[]>();
    const facts = await repos.events.typeFacts(tenantId, [...keys.keys()]);
    const sets: TypeColumns[] = [];
    for (const value of [...keys.keys()].sort()) sets.push(await typeColumns(repos, tenantId, value, keys.get(value)!, facts.get(value) ?? fallbackFacts(value)));
    const stamp = `${new Date(this.deps.clock.now()).toISOString().slice(0, 19).replace(/[-:]/g, '')}Z`;
    return {
      filename: `events_export_${stamp}.csv`,
      header: [...COMMON, ...sets.flatMap((set) => set.headers)],
      rows: () => (filter ? exportRows(repos, tenantId, filter, sets) : empty()),
    };
  }
}

async function* empty(): AsyncGenerator<Array<string | number | null>> {}

async function* exportRows(repos: Repositories, tenantId: string, filter: EventListFilter, sets: TypeColumns[]): AsyncGenerator<Array<string | number | null>> {
  const facts = await repos.events.typeFacts(tenantId, sets.map((set) => set.value));
  const offsets = new Map<string, number>();
  let width = COMMON.length;
  for (const set of sets) {
    offsets.set(set.value, width);
    width += set.keys.length;
  }
  const byValue = new Map(sets.map((set) => [set.value, set]));
  let after: EventRecord | null = null;
  for (;;) {
    const batch = await repos.events.exportBatch(tenantId, filter, after, EXPORT_BATCH);
    if (batch.length === 0) return;
    const reporters = [...new Set(batch.map((event) => event.createdByUserId).filter((id): id is string => !!id))];
    const users = new Map((await repos.users.findManyInTenant(tenantId, reporters)).map((user) => [user.id, user.username]));
    const missing = [...new Set(batch.map((event) => event.eventType))].filter((value) => !facts.has(value));
    if (missing.length) for (const [value, fact] of await repos.events.typeFacts(tenantId, missing)) facts.set(value, fact);
    for (const event of batch) {
      const row: Array<string | number | null> = new Array(width).fill(null);
      const fact = facts.get(event.eventType);
      row.splice(0, COMMON.length,
        event.serialNumber, event.id, event.eventType, fact?.category ?? null, event.title, toIso(event.time), event.state, event.priority,
        event.latitude, event.longitude, event.createdByUserId ? users.get(event.createdByUserId) ?? null : null, toIso(event.createdAt), toIso(event.updatedAt));
      const set = byValue.get(event.eventType);
      if (set) {
        const start = offsets.get(set.value)!;
        set.keys.forEach((key, index) => {
          if (Object.hasOwn(event.eventDetails, key)) row[start + index] = cell(event.eventDetails[key]);
        });
      }
      yield row;
    }
    if (batch.length < EXPORT_BATCH) return;
    after = batch[batch.length - 1]!;
    // Let other requests run between batches.
    await yieldLoop();
  }
}

/** A details value as one cell: scalars as they are, lists of scalars joined, anything else as JSON. */
function cell(value: unknown): string | number | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string' || typeof value === 'number') return value;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (Array.isArray(value) && value.every((item) => typeof item === 'string' || typeof item === 'number')) return value.join(', ');
  return JSON.stringify(value);
}

/** The type's columns: its schema's properties first (in schema order), then other keys its events hold. */
async function typeColumns(repos: Repositories, tenantId: string, value: string, keys: string[], facts: EventTypeFacts): Promise<TypeColumns> {
  const properties = await schemaProperties(repos, tenantId, value);
  const present = new Set(keys);
  const ordered = [...Object.keys(properties).filter((key) => present.has(key)), ...keys.filter((key) => !Object.hasOwn(properties, key))];
  const label = facts.display || value;
  return {
    value,
    keys: ordered,
    headers: ordered.map((key) => {
      const title = Object.hasOwn(properties, key) ? properties[key] : undefined;
      return `${label}: ${typeof title === 'string' && title.trim() ? title.trim() : key}`;
    }),
  };
}

/** Property key → title from the type's schema (v2 `json.properties`, v1 `schema.properties`); {} when unreadable. */
async function schemaProperties(repos: Repositories, tenantId: string, value: string): Promise<Record<string, string | undefined>> {
  const titles = (properties: unknown): Record<string, string | undefined> => {
    if (!properties || typeof properties !== 'object' || Array.isArray(properties)) return {};
    return Object.fromEntries(Object.entries(properties as Record<string, unknown>).map(([key, spec]) => [key, typeof (spec as { title?: unknown })?.title === 'string' ? (spec as { title: string }).title : undefined]));
  };
  try {
    const v2 = value.length <= 50 ? await repos.eventTypes.find(tenantId, value) : null;
    if (v2 && v2.isActive) return titles((JSON.parse(v2.schema) as { json?: { properties?: unknown } }).json?.properties);
    const v1 = value.length <= 50 ? await repos.eventTypesV1.find(tenantId, value) : null;
    // NOTE: a v1 document is template text; one whose choices are placeholders is not JSON (keys stay as headers).
    if (v1) return titles((JSON.parse(v1.schemaText) as { schema?: { properties?: unknown } }).schema?.properties);
  } catch {
    return {};
  }
  return {};
}
