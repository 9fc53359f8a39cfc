import type { Knex } from 'knex';
import type { Observation } from '../../domain/model.js';
import type { ObservationFilter, ObservationRepository, SteadyIntakeStamp, SubjectStatusUpdate } from '../../domain/ports.js';
import type { Dialect } from '../knex.js';
import { type Executor, jsonColumn, parseJsonColumn } from '../rows.js';
import { fromDbMillis } from '../time.js';
import { insertObservationBatch, insertStampedObservationBatch } from './observations-batch.js';

type Row = Record<string, unknown>;

export const toObservation = (row: Row): Observation => ({
  id: row.id as string,
  tenantId: row.tenant_id as string,
  sourceId: row.source_id as string,
  subjectId: (row.subject_id as string | null) ?? null,
  recordedAt: fromDbMillis(row.recorded_at),
  latitude: Number(row.latitude),
  longitude: Number(row.longitude),
  additional: parseJsonColumn<Record<string, unknown>>(row.additional, {}),
  createdAt: fromDbMillis(row.created_at),
});

const toRow = (o: Observation): Row => ({
  id: o.id,
  tenant_id: o.tenantId,
  source_id: o.sourceId,
  subject_id: o.subjectId,
  recorded_at: o.recordedAt,
  latitude: o.latitude,
  longitude: o.longitude,
  additional: jsonColumn(o.additional),
  created_at: o.createdAt,
});

/** Rows in key order: concurrent writers lock index entries in one order. */
const sortedRows = (observations: readonly Observation[]) =>
  [...observations].sort((a, b) => (a.sourceId === b.sourceId ? a.recordedAt - b.recordedAt : a.sourceId < b.sourceId ? -1 : 1)).map(toRow);

export class KnexObservationRepository implements ObservationRepository {
  constructor(
    private readonly db: Executor,
    private readonly dialect: Dialect,
  ) {}

  /**
   * INSERT ... ON CONFLICT (source_id, recorded_at) DO NOTHING RETURNING id: both dialects
   * return exactly the rows that were new, so duplicates within the statement, in earlier
   * batches and in concurrent transactions are all skipped without an error. Rows go in sorted
   * by key so that concurrent writers lock index entries in one order. See observations-batch.ts.
   */
  async insertBatch(observations: readonly Observation[], statuses: readonly SubjectStatusUpdate[]): Promise<number> {
    const rows = sortedRows(observations);
    return insertObservationBatch(this.db, this.dialect, rows, statuses);
  }

  async insertSteadyBatch(observations: readonly Observation[], statuses: readonly SubjectStatusUpdate[], stamp: SteadyIntakeStamp): Promise<number | null> {
    return insertStampedObservationBatch(this.db, this.dialect, sortedRows(observations), statuses, stamp);
  }

  async list(tenantId: string, filter: ObservationFilter, page: { offset: number; limit: number }): Promise<Observation[]> {
    const direction = filter.newestFirst ? 'desc' : 'asc';
    const rows = await this.filtered(tenantId, filter)
      .orderBy([{ column: 'recorded_at', order: direction }, { column: 'id', order: direction }])
      .offset(page.offset)
      .limit(page.limit);
    return rows.map(toObservation);
  }

  async count(tenantId: string, filter: ObservationFilter): Promise<number> {
    const row = await this.filtered(tenantId, filter).count({ n: '*' }).first();
    return Number(row?.n ?? 0);
  }

  private filtered(tenantId: string, filter: ObservationFilter): Knex.QueryBuilder {
    const query = this.db('observations').where({ tenant_id: tenantId });
    if (filter.sourceId !== null) query.where({ source_id: filter.sourceId });
    if (filter.subjectId !== null) query.where({ subject_id: filter.subjectId });
    if (filter.since !== null) query.where('recorded_at', '>=', filter.since);
    if (filter.until !== null) query.where('recorded_at', '<=', filter.until);
    return query;
  }
}
