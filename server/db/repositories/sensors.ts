import { randomUUID } from 'node:crypto';
import type { SensorProvider, SensorSource } from '../../domain/model.js';
import type { NewSourceSpec, SensorRepository, SubjectStatusUpdate } from '../../domain/ports.js';
import { type Executor, jsonColumn, parseJsonColumn } from '../rows.js';
import { fromDbMillis, fromDbMillisOrNull } from '../time.js';

type Row = Record<string, unknown>;

/** Rows per statement: far below the bound-parameter limits of both dialects. */
const CHUNK = 400;

export const toProvider = (row: Row): SensorProvider => ({
  id: row.id as string,
  tenantId: row.tenant_id as string,
  key: row.provider_key as string,
  providerType: row.provider_type as string,
  lastHeartbeat: parseJsonColumn<Record<string, unknown> | null>(row.last_heartbeat, null),
  lastHeartbeatAt: fromDbMillisOrNull(row.last_heartbeat_at),
  createdAt: fromDbMillis(row.created_at),
  updatedAt: fromDbMillis(row.updated_at),
});

export const toSource = (row: Row): SensorSource => ({
  id: row.id as string,
  tenantId: row.tenant_id as string,
  providerId: row.provider_id as string,
  manufacturerId: row.manufacturer_id as string,
  sourceType: row.source_type as string,
  modelName: row.model_name as string,
  subjectId: (row.subject_id as string | null) ?? null,
  createdAt: fromDbMillis(row.created_at),
  updatedAt: fromDbMillis(row.updated_at),
});

/**
 * Providers, sources, subject status and camera-image claims. Creation is always
 * INSERT ... ON CONFLICT DO NOTHING followed by a read, so concurrent first sights of the same
 * key never fail: on PostgreSQL the second insert waits for the first to commit, then skips.
 */
export class KnexSensorRepository implements SensorRepository {
  constructor(private readonly db: Executor) {}

  async ensureProvider(tenantId: string, key: string, providerType: string, at: number): Promise<SensorProvider> {
    const where = { tenant_id: tenantId, provider_key: key };
    const existing = await this.db('sensor_providers').where(where).first();
    if (existing) return toProvider(existing);
    await this.db('sensor_providers')
      .insert({ id: randomUUID(), ...where, provider_type: providerType, last_heartbeat: null, last_heartbeat_at: null, created_at: at, updated_at: at })
      .onConflict(['tenant_id', 'provider_key'])
      .ignore();
    return toProvider(await this.db('sensor_providers').where(where).first());
  }

  async ensureSources(tenantId: string, providerId: string, specs: readonly NewSourceSpec[], at: number): Promise<Map<string, SensorSource>> {
    const found = new Map<string, SensorSource>();
    const read = async (ids: string[]) => {
      for (let i = 0; i < ids.length; i += CHUNK) {
        const rows = await this.db('sensor_sources').where({ provider_id: providerId }).whereIn('manufacturer_id', ids.slice(i, i + CHUNK));
        for (const row of rows) found.set(row.manufacturer_id as string, toSource(row));
      }
    };
    await read(specs.map((spec) => spec.manufacturerId));
    // Sorted so that concurrent writers take index locks in one order (no deadlocks).
    const missing = specs.filter((spec) => !found.has(spec.manufacturerId)).sort((a, b) => (a.manufacturerId < b.manufacturerId ? -1 : 1));
    if (missing.length === 0) return found;
    const rows = missing.map((spec) => ({
      id: randomUUID(), tenant_id: tenantId, provider_id: providerId, manufacturer_id: spec.manufacturerId,
      source_type: spec.sourceType, model_name: spec.modelName, subject_id: null, created_at: at, updated_at: at,
    }));
    for (let i = 0; i < rows.length; i += CHUNK) {
      await this.db('sensor_sources').insert(rows.slice(i, i + CHUNK)).onConflict(['provider_id', 'manufacturer_id']).ignore();
    }
    await read(missing.map((spec) => spec.manufacturerId));
    return found;
  }

  async assignSubject(sourceId: string, subjectId: string, at: number): Promise<void> {
    await this.db('sensor_sources').where({ id: sourceId }).update({ subject_id: subjectId, updated_at: at });
  }

  async recordHeartbeat(providerId: string, message: Record<string, unknown>, at: number): Promise<void> {
    await this.db('sensor_providers').where({ id: providerId }).update({ last_heartbeat: jsonColumn(message), last_heartbeat_at: at, updated_at: at });
  }

  /**
   * One multi-row upsert. Every SET expression reads the row as it was (SQL semantics on both
   * dialects), so position and radio state advance independently, each only forwards in time.
   */
  async advanceSubjectStatus(updates: readonly SubjectStatusUpdate[]): Promise<void> {
    const sorted = [...updates].sort((a, b) => (a.subjectId < b.subjectId ? -1 : 1));
    const newer = 'excluded.recorded_at > subject_status.recorded_at';
    const radioNewer = 'excluded.radio_recorded_at IS NOT NULL AND (subject_status.radio_recorded_at IS NULL OR excluded.radio_recorded_at > subject_status.radio_recorded_at)';
    const pick = (condition: string, column: string) => this.db.raw(`CASE WHEN ${condition} THEN excluded.${column} ELSE subject_status.${column} END`);
    for (let i = 0; i < sorted.length; i += CHUNK) {
      const rows = sorted.slice(i, i + CHUNK).map((u) => ({
        subject_id: u.subjectId, tenant_id: u.tenantId, source_id: u.sourceId, recorded_at: u.recordedAt, latitude: u.latitude, longitude: u.longitude,
        radio_recorded_at: u.radioRecordedAt, radio_state: u.radioState === null ? null : jsonColumn(u.radioState), updated_at: u.at,
      }));
      await this.db('subject_status')
        .insert(rows)
        .onConflict(['subject_id'])
        .merge({
          source_id: pick(newer, 'source_id'),
          latitude: pick(newer, 'latitude'),
          longitude: pick(newer, 'longitude'),
          // Last: the conditions above compare against the old recorded_at either way.
          recorded_at: pick(newer, 'recorded_at'),
          radio_state: pick(radioNewer, 'radio_state'),
          radio_recorded_at: pick(radioNewer, 'radio_recorded_at'),
          updated_at: this.db.raw('excluded.updated_at'),
        });
    }
  }

  async claimCameraImage(tenantId: string, sha256: string, eventId: string, providerId: string, at: number): Promise<boolean> {
    const claimed = await this.db('camera_trap_images')
      .insert({ tenant_id: tenantId, sha256, event_id: eventId, provider_id: providerId, created_at: at })
      .onConflict(['tenant_id', 'sha256'])
      .ignore()
      .returning('sha256');
    return claimed.length === 1;
  }
}
