import { setImmediate as yieldLoop } from 'node:timers/promises';
import type { Clock } from '../../db/time.js';
import { toIso } from '../../db/time.js';
import { type RequestContext, requirePermission } from '../context.js';
import type { Repositories, Store } from '../ports.js';
import { type EventListQuery, resolveEventFilter } from './filters.js';
import type { EventListFilter, EventRecord, EventTypeFacts } from './model.js';
import { fallbackFacts } from './views.js';
import { type DetailColumn, OTHER_DETAILS, v1DetailColumns, v2DetailColumns } from './export-columns.js';

/** Rows read per query: each batch is one keyset query, then the event loop is let go. */
export const EXPORT_BATCH = 1000;
/** At most this many types get column sets (one schema read each); the rest's details go to OTHER_DETAILS. */
export const MAX_EXPORT_TYPES = 500;
/** At most this many (type, property) columns in all; a type's properties past it go to OTHER_DETAILS. */
export const MAX_DETAIL_COLUMNS = 2000;
/** Reporters' usernames kept across batches (most exports name a few users many times). */
const USERNAME_CACHE = 10_000;

const COMMON = ['Serial Number', 'Id', 'Event Type', 'Event Category', 'Title', 'Time', 'State', 'Priority', 'Latitude', 'Longitude', 'Reported By', 'Created At', 'Updated At'];

/** One column set of a type: its schema's property keys and their headers. */
interface TypeColumns {
  value: string;
  keys: string[];
  headers: string[];
}

type Cell = string | number | null;

/** An export ready to stream: the header row, then the rows, read in batches as they are pulled. */
export interface EventExport {
  filename: string;
  header: string[];
  rows: () => AsyncGenerator<Cell[]>;
}

/**
 * The events export (issue 27 §4, er-client `get_events_export`): the list's filter (filters.ts),
 * the common columns, then one column set per event type present (the properties of the type's
 * current schema, export-columns.ts), headed `<type display>: <title or key>`, then one
 * OTHER_DETAILS column: the keys an event's `event_details` holds that its type's columns do
 * not list, as a JSON object (empty when none), so no recorded value is lost. Finding the
 * columns is bounded work: the types present come from one indexed DISTINCT (no event's details
 * are read), then at most MAX_EXPORT_TYPES schemas. Rows are read in keyset batches of
 * EXPORT_BATCH (never the whole result in memory) and the event loop is yielded between
 * batches. Needs export_event. Knows no HTTP and no CSV: the handler writes the rows.
 */
export class EventExportService {
  constructor(protected readonly deps: { store: Store; clock: Clock }) {}

  async open(ctx: RequestContext, query: EventListQuery): Promise<EventExport> {
    const { tenantId } = requirePermission(ctx, 'export_event');
    const { repos } = this.deps.store;
    const filter = await resolveEventFilter(repos, tenantId, query);
    const types = filter ? await repos.events.exportTypes(tenantId, filter, MAX_EXPORT_TYPES) : [];
    const facts = await repos.events.typeFacts(tenantId, types);
    const sets: TypeColumns[] = [];
    let budget = MAX_DETAIL_COLUMNS;
    for (const value of types) {
      const set = typeColumns(value, await detailColumnsOf(repos, tenantId, value), facts.get(value) ?? fallbackFacts(value), budget);
      budget -= set.keys.length;
      sets.push(set);
    }
    const stamp = `${new Date(this.deps.clock.now()).toISOString().slice(0, 19).replace(/[-:]/g, '')}Z`;
    return {
      filename: `events_export_${stamp}.csv`,
      header: [...COMMON, ...sets.flatMap((set) => set.headers), OTHER_DETAILS],
      rows: () => (filter ? exportRows(repos, tenantId, filter, sets, facts) : empty()),
    };
  }
}

async function* empty(): AsyncGenerator<Cell[]> {}

async function* exportRows(repos: Repositories, tenantId: string, filter: EventListFilter, sets: TypeColumns[], facts: Map<string, EventTypeFacts>): AsyncGenerator<Cell[]> {
  // Column of each (type, key): one lookup per detail, whatever the number of types.
  const columnOf = new Map<string, Map<string, number>>();
  let width = COMMON.length;
  for (const set of sets) {
    columnOf.set(set.value, new Map(set.keys.map((key, index) => [key, width + index])));
    width += set.keys.length;
  }
  const otherColumn = width++;
  const usernames = new Map<string, string | null>();
  const noColumns = new Map<string, number>();
  let after: EventRecord | null = null;
  for (;;) {
    const batch = await repos.events.exportBatch(tenantId, filter, after, EXPORT_BATCH);
    if (batch.length === 0) return;
    await learnUsernames(repos, tenantId, batch, usernames);
    // A type absent when the export opened (created since, or past MAX_EXPORT_TYPES): its facts once.
    const missing = [...new Set(batch.map((event) => event.eventType))].filter((value) => !facts.has(value));
    if (missing.length) {
      const found = await repos.events.typeFacts(tenantId, missing);
      for (const value of missing) facts.set(value, found.get(value) ?? fallbackFacts(value));
    }
    for (const event of batch) {
      const row: Cell[] = new Array<Cell>(width).fill(null);
      row[0] = event.serialNumber;
      row[1] = event.id;
      row[2] = event.eventType;
      row[3] = facts.get(event.eventType)?.category ?? null;
      row[4] = event.title;
      row[5] = toIso(event.time);
      row[6] = event.state;
      row[7] = event.priority;
      row[8] = event.latitude;
      row[9] = event.longitude;
      row[10] = event.createdByUserId ? usernames.get(event.createdByUserId) ?? null : null;
      row[11] = toIso(event.createdAt);
      row[12] = toIso(event.updatedAt);
      const columns = columnOf.get(event.eventType) ?? noColumns;
      let other: Record<string, unknown> | null = null;
      for (const [key, value] of Object.entries(event.eventDetails)) {
        const column = columns.get(key);
        if (column !== undefined) row[column] = cell(value);
        // A null prototype: a key named `__proto__` is kept as a key (JSON.parse made it one).
        else (other ??= Object.create(null) as Record<string, unknown>)[key] = value;
      }
      if (other) row[otherColumn] = JSON.stringify(other);
      yield row;
    }
    if (batch.length < EXPORT_BATCH) return;
    after = batch[batch.length - 1]!;
    // Let other requests run between batches.
    await yieldLoop();
  }
}

/** The batch's reporters' usernames into `known` (one read for the ones not seen yet; the cache is bounded). */
async function learnUsernames(repos: Repositories, tenantId: string, batch: readonly EventRecord[], known: Map<string, string | null>): Promise<void> {
  const unknown = [...new Set(batch.map((event) => event.createdByUserId).filter((id): id is string => !!id && !known.has(id)))];
  if (unknown.length === 0) return;
  if (known.size + unknown.length > USERNAME_CACHE) known.clear();
  const found = new Map((await repos.users.findManyInTenant(tenantId, unknown)).map((user) => [user.id, user.username]));
  for (const id of unknown) known.set(id, found.get(id) ?? null);
}

/** A details value as one cell: scalars as they are, lists of scalars joined, anything else as JSON. */
function cell(value: unknown): Cell {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string' || typeof value === 'number') return value;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (Array.isArray(value) && value.every((item) => typeof item === 'string' || typeof item === 'number')) return value.join(', ');
  return JSON.stringify(value);
}

/** The type's column set: its schema's properties, at most `budget` of them (the rest reach OTHER_DETAILS). */
function typeColumns(value: string, columns: DetailColumn[], facts: EventTypeFacts, budget: number): TypeColumns {
  const kept = columns.slice(0, Math.max(0, budget));
  const label = facts.display || value;
  return { value, keys: kept.map((column) => column.key), headers: kept.map((column) => `${label}: ${column.title ?? column.key}`) };
}

/** The columns of the type's current schema: the active v2 type's, else the v1 type's; none when there is neither. */
async function detailColumnsOf(repos: Repositories, tenantId: string, value: string): Promise<DetailColumn[]> {
  if (value.length > 50) return [];
  const v2 = await repos.eventTypes.find(tenantId, value);
  if (v2 && v2.isActive) return v2DetailColumns(v2.schema);
  const v1 = await repos.eventTypesV1.find(tenantId, value);
  return v1 ? v1DetailColumns(v1.schemaText) : [];
}
