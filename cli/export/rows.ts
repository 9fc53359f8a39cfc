/**
 * What `fieldops export` reads from the mirror, one row at a time: a SQLite cursor (better-sqlite3's
 * `iterate`) on the mirror's one connection, never the whole table in memory. The filters
 * (--since, --until, --type, --subject) are applied to each row as it passes.
 *
 * - events: pulled by `pull` (`pulled_events`), then those recorded here and not pulled back yet
 *   (the outbox's `event.create`, unless dropped);
 * - subjects: pulled (`pulled_subjects`);
 * - tracks: the fixes pulled from the server (`pulled_track_points`, status `server`), and the
 *   observations recorded on this laptop (the outbox's `observation`, queued or sent) that did
 *   not come back with them: one recorded here, pushed and pulled again (same provider, same
 *   manufacturer id, same instant) is written once, as the server's. Manufacturer ids are unique
 *   per provider only, so the provider is compared too: the observation's own `provider` when it
 *   names one, else the provider key it is (or will be) pushed with (the outbox body's
 *   `providerKey`: the push posts to `sensors/<type>/<providerKey>/status`). A pulled fix without
 *   a provider (an older server) matches no laptop fix: written twice rather than lost.
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

/**
 * An outbox time as epoch milliseconds in SQL (SQLite reads offsets and `Z`): what a pulled
 * fix's `recorded_ms` is compared with.
 */
const OUTBOX_MS = "CAST(round((julianday(json_extract(o.body, '$.observation.recorded_at')) - 2440587.5) * 86400000) AS INTEGER)";
/** The provider an outbox observation belongs to (see the rule at the top). */
const OUTBOX_PROVIDER = "coalesce(json_extract(o.body, '$.observation.provider'), json_extract(o.body, '$.providerKey'))";

/** Fixes in track order: by subject, source, then time; the server's and this laptop's merged. */
export async function* trackPoints(knex: Knex, filter: ExportFilter): AsyncGenerator<TrackPoint> {
  const sql = `SELECT subject, subject_id, source, source_type, recorded_at, latitude, longitude, elevation, status, sort_ms, seq FROM (
      SELECT coalesce(subject_name, subject_id) AS subject, subject_id, coalesce(manufacturer_id, source_id) AS source, source_type, recorded_at,
        latitude, longitude, elevation, 'server' AS status, recorded_ms AS sort_ms, 0 AS seq
      FROM pulled_track_points
      UNION ALL
      SELECT coalesce(json_extract(o.body, '$.observation.subject_name'), json_extract(o.body, '$.observation.subject_id')) AS subject,
        json_extract(o.body, '$.observation.subject_id') AS subject_id,
        json_extract(o.body, '$.observation.manufacturer_id') AS source,
        coalesce(json_extract(o.body, '$.observation.source_type'), json_extract(o.body, '$.sourceType')) AS source_type,
        json_extract(o.body, '$.observation.recorded_at') AS recorded_at,
        json_extract(o.body, '$.observation.location.lat') AS latitude, json_extract(o.body, '$.observation.location.lon') AS longitude,
        json_extract(o.body, '$.observation.additional.elevation') AS elevation, o.status AS status, ${OUTBOX_MS} AS sort_ms, o.seq AS seq
      FROM outbox o WHERE o.kind = 'observation' AND o.status IN ('pending', 'sent')
        AND NOT EXISTS (SELECT 1 FROM pulled_track_points p WHERE p.manufacturer_id = json_extract(o.body, '$.observation.manufacturer_id')
          AND p.recorded_ms = ${OUTBOX_MS} AND p.provider = ${OUTBOX_PROVIDER})
    ) ORDER BY subject, source, sort_ms, seq`;
  for await (const r of cursor(knex, sql)) {
    const latitude = num(r.latitude);
    const longitude = num(r.longitude);
    const recordedAt = str(r.recorded_at);
    if (latitude === null || longitude === null || recordedAt === null) continue;
    const subject = str(r.subject) ?? '';
    const sourceType = str(r.source_type) ?? '';
    if (filter.type !== null && sourceType !== filter.type) continue;
    if (!names(filter, subject, str(r.subject_id))) continue;
    if (!inWindow(recordedAt, filter)) continue;
    yield { subject, source: str(r.source) ?? '', sourceType, recordedAt, latitude, longitude, elevation: num(r.elevation), status: String(r.status) };
  }
}
