/**
 * What `fieldops export` reads from the mirror, one row at a time: a SQLite cursor (better-sqlite3's
 * `iterate`) on the mirror's one connection, never the whole table in memory. The filters
 * (--since, --until, --type, --subject) are applied to each row as it passes.
 *
 * - events: pulled by `pull` (`pulled_events`), then those recorded here and not pulled back yet
 *   (the outbox's `event.create`, unless dropped);
 * - subjects: pulled (`pulled_subjects`);
 * - tracks: the observations recorded on this laptop (the outbox's `observation`, queued or
 *   sent); the mirror does not pull the server's tracks.
 */
import type { Knex } from 'knex';

export interface ExportFilter {
  since: number | null;
  until: number | null;
  type: string | null;
  subject: string | null;
}

export interface EventRow {
  id: string;
  serialNumber: number | null;
  eventType: string;
  title: string | null;
  time: string | null;
  state: string | null;
  priority: number | null;
  latitude: number | null;
  longitude: number | null;
  updatedAt: string | null;
  origin: 'server' | 'laptop';
  details: Record<string, unknown>;
}

export interface SubjectRow {
  id: string;
  name: string;
  subjectType: string | null;
  subjectSubtype: string | null;
  active: boolean;
  lastPositionAt: string | null;
  latitude: number | null;
  longitude: number | null;
}

export interface TrackPoint {
  /** The subject's name or id, as recorded. */
  subject: string;
  source: string;
  sourceType: string;
  recordedAt: string;
  latitude: number;
  longitude: number;
  elevation: number | null;
  status: string;
}

interface Statement {
  iterate(...bindings: unknown[]): IterableIterator<Record<string, unknown>>;
}
interface Connection {
  prepare(sql: string): Statement;
}

/** Rows of one query, through a cursor; the connection is held until the iteration ends. */
async function* cursor(knex: Knex, sql: string, bindings: unknown[] = []): AsyncGenerator<Record<string, unknown>> {
  const client = knex.client as { acquireConnection(): Promise<Connection>; releaseConnection(c: Connection): Promise<void> };
  const connection = await client.acquireConnection();
  const rows = connection.prepare(sql).iterate(...bindings);
  try {
    let n = 0;
    for (const row of rows) {
      yield row;
      // Let the terminal's progress line (and a closed pipe) be seen on long exports.
      if (++n % 2000 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
  } finally {
    rows.return?.();
    await client.releaseConnection(connection);
  }
}

const inWindow = (time: string | null, filter: ExportFilter) => {
  if (filter.since === null && filter.until === null) return true;
  const at = time ? Date.parse(time) : NaN;
  if (Number.isNaN(at)) return false;
  return (filter.since === null || at >= filter.since) && (filter.until === null || at < filter.until);
};

const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : null);
const str = (v: unknown) => (typeof v === 'string' ? v : v === null || v === undefined ? null : String(v));

function eventRow(record: Record<string, unknown>, origin: EventRow['origin']): EventRow {
  const location = record.location as { latitude?: unknown; longitude?: unknown } | null | undefined;
  return {
    id: String(record.id ?? ''),
    serialNumber: num(record.serial_number),
    eventType: String(record.event_type ?? ''),
    title: str(record.title),
    time: str(record.time),
    state: str(record.state) ?? (origin === 'laptop' ? 'new' : null),
    priority: num(record.priority),
    latitude: num(location?.latitude),
    longitude: num(location?.longitude),
    updatedAt: str(record.updated_at),
    origin,
    details: (record.event_details && typeof record.event_details === 'object' ? record.event_details : {}) as Record<string, unknown>,
  };
}

/** Whether a subject filter names this subject (its id, or its name without regard to case). */
const names = (filter: ExportFilter, ...candidates: Array<string | null | undefined>) =>
  filter.subject === null || candidates.some((c) => typeof c === 'string' && c.toLowerCase() === filter.subject!.toLowerCase());

export async function* eventRows(knex: Knex, filter: ExportFilter): AsyncGenerator<EventRow> {
  const keep = (row: EventRow, related: unknown) => {
    if (filter.type !== null && row.eventType !== filter.type) return false;
    if (!inWindow(row.time, filter)) return false;
    if (filter.subject === null) return true;
    const subjects = Array.isArray(related) ? (related as Array<{ id?: string; name?: string }>) : [];
    return subjects.some((s) => names(filter, s.id, s.name));
  };
  for await (const r of cursor(knex, 'SELECT record FROM pulled_events ORDER BY sort_time, id')) {
    const record = JSON.parse(String(r.record)) as Record<string, unknown>;
    const row = eventRow(record, 'server');
    if (keep(row, record.related_subjects)) yield row;
  }
  const recorded = `SELECT body FROM outbox o WHERE o.kind = 'event.create' AND o.status <> 'dropped'
    AND NOT EXISTS (SELECT 1 FROM pulled_events p WHERE p.id = o.target) ORDER BY o.seq`;
  for await (const r of cursor(knex, recorded)) {
    const body = JSON.parse(String(r.body)) as Record<string, unknown>;
    const row = eventRow(body, 'laptop');
    if (keep(row, body.related_subjects)) yield row;
  }
}

export async function* subjectRows(knex: Knex, filter: ExportFilter): AsyncGenerator<SubjectRow> {
  for await (const r of cursor(knex, 'SELECT record FROM pulled_subjects ORDER BY label, id')) {
    const record = JSON.parse(String(r.record)) as Record<string, unknown>;
    const point = (record.last_position as { geometry?: { coordinates?: unknown[] } } | null | undefined)?.geometry?.coordinates;
    const row: SubjectRow = {
      id: String(record.id ?? ''),
      name: String(record.name ?? ''),
      subjectType: str(record.subject_type),
      subjectSubtype: str(record.subject_subtype),
      active: record.is_active !== false,
      lastPositionAt: str(record.last_position_date),
      latitude: num(point?.[1]),
      longitude: num(point?.[0]),
    };
    if (filter.type !== null && row.subjectSubtype !== filter.type && row.subjectType !== filter.type) continue;
    if (!names(filter, row.id, row.name)) continue;
    if ((filter.since !== null || filter.until !== null) && !inWindow(row.lastPositionAt, filter)) continue;
    yield row;
  }
}

/** Observations in track order: by subject, source, then time. */
export async function* trackPoints(knex: Knex, filter: ExportFilter): AsyncGenerator<TrackPoint> {
  const sql = `SELECT body, status FROM outbox WHERE kind = 'observation' AND status IN ('pending', 'sent')
    ORDER BY coalesce(json_extract(body, '$.observation.subject_name'), json_extract(body, '$.observation.subject_id')),
      json_extract(body, '$.observation.manufacturer_id'), json_extract(body, '$.observation.recorded_at'), seq`;
  for await (const r of cursor(knex, sql)) {
    const body = JSON.parse(String(r.body)) as { sourceType?: string; observation?: Record<string, unknown> };
    const o = body.observation ?? {};
    const location = (o.location ?? {}) as { lat?: unknown; lon?: unknown };
    const latitude = num(location.lat);
    const longitude = num(location.lon);
    const recordedAt = str(o.recorded_at);
    if (latitude === null || longitude === null || recordedAt === null) continue;
    const subject = str(o.subject_name) ?? str(o.subject_id) ?? '';
    const sourceType = str(o.source_type) ?? body.sourceType ?? '';
    if (filter.type !== null && sourceType !== filter.type) continue;
    if (!names(filter, str(o.subject_name), str(o.subject_id))) continue;
    if (!inWindow(recordedAt, filter)) continue;
    const additional = (o.additional ?? {}) as Record<string, unknown>;
    yield { subject, source: str(o.manufacturer_id) ?? '', sourceType, recordedAt, latitude, longitude, elevation: num(additional.elevation), status: String(r.status) };
  }
}
