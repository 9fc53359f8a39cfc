import { randomUUID } from 'node:crypto';
import { type SensorProvider, type SensorSource, type Subject, SUBJECTS_CATALOG } from '../../domain/model.js';
import { type NamedStatement, queryNamed } from '../direct.js';
import type { Dialect } from '../knex.js';
import { toSubject } from './subjects.js';
import type { NewSourceSpec, SensorRepository, SteadyIntakeRead } from '../../domain/ports.js';
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

const SOURCE_COLUMNS = ['id', 'tenant_id', 'provider_id', 'manufacturer_id', 'source_type', 'model_name', 'subject_id', 'created_at', 'updated_at'] as const;

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

/** The steady-intake read on PostgreSQL: provider, the batch's sources, and its subjects by name. */
const STEADY_INTAKE_POSTGRES: NamedStatement = {
  name: 'fieldops_steady_intake',
  text: `SELECT 'p' AS kind, row_to_json(p) AS r FROM sensor_providers p WHERE p.tenant_id = $1 AND p.provider_key = $2
    UNION ALL SELECT 's', row_to_json(s) FROM sensor_sources s JOIN sensor_providers p ON s.provider_id = p.id
      WHERE p.tenant_id = $1 AND p.provider_key = $2 AND s.manufacturer_id = ANY($3::text[])
    UNION ALL SELECT 'n', row_to_json(x) FROM subjects x WHERE x.tenant_id = $1 AND x.name = ANY($4::text[])
    UNION ALL SELECT 'v', json_build_object('version', v.version) FROM catalog_versions v WHERE v.tenant_id = $1 AND v.catalog = '${SUBJECTS_CATALOG}'`,
};

/**
 * Providers, sources, subject status and camera-image claims. Creation is always
 * INSERT ... ON CONFLICT DO NOTHING followed by a read, so concurrent first sights of the same
 * key never fail: on PostgreSQL the second insert waits for the first to commit, then skips.
 */
export class KnexSensorRepository implements SensorRepository {
  constructor(
    private readonly db: Executor,
    private readonly dialect: Dialect,
  ) {}

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

  async findProviderWithSources(tenantId: string, key: string, manufacturerIds: readonly string[]) {
    if (manufacturerIds.length === 0 || manufacturerIds.length > CHUNK) return null;
    const rows: Row[] = await this.db('sensor_providers as p')
      .leftJoin('sensor_sources as s', (join) => join.on('s.provider_id', 'p.id').onIn('s.manufacturer_id', [...manufacturerIds]))
      .where({ 'p.tenant_id': tenantId, 'p.provider_key': key })
      .select('p.*', ...SOURCE_COLUMNS.map((column) => `s.${column} as s_${column}`));
    if (rows.length === 0) return null;
    const provider = toProvider(rows[0]!);
    const sources = new Map<string, SensorSource>();
    for (const row of rows) {
      if (row.s_id === null || row.s_id === undefined) continue;
      const source = toSource(Object.fromEntries(SOURCE_COLUMNS.map((column) => [column, row[`s_${column}`]])));
      sources.set(source.manufacturerId, source);
    }
    return manufacturerIds.every((id) => sources.has(id)) ? { provider, sources } : null;
  }

  /**
   * PostgreSQL: one round trip, each row as JSON under a kind ('p' provider, 's' source, 'n'
   * subject, 'v' the subjects catalog version), mapped by the same row mappers, all from one
   * snapshot. SQLite (in-process, no round trips): the version first, then the two reads, so
   * that a subject written between them leaves the version older than what was read, never newer.
   */
  async findSteadyIntake(tenantId: string, key: string, manufacturerIds: readonly string[], subjectNames: readonly string[]): Promise<SteadyIntakeRead | null> {
    if (manufacturerIds.length === 0 || manufacturerIds.length > CHUNK || subjectNames.length > CHUNK) return null;
    const byAge = (a: Subject, b: Subject) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1);
    if (this.dialect === 'sqlite') {
      const version = await this.db('catalog_versions').where({ tenant_id: tenantId, catalog: SUBJECTS_CATALOG }).first('version');
      const found = await this.findProviderWithSources(tenantId, key, manufacturerIds);
      if (!found) return null;
      const named = subjectNames.length > 0 ? (await this.db('subjects').where({ tenant_id: tenantId }).whereIn('name', [...subjectNames])).map(toSubject) : [];
      return { ...found, named: named.sort(byAge), subjectsVersion: Number(version?.version ?? 0) };
    }
    const rows = (await queryNamed(this.db, STEADY_INTAKE_POSTGRES, [tenantId, key, [...manufacturerIds], [...subjectNames]])) as Array<{ kind: 'p' | 's' | 'n' | 'v'; r: Row }>;
    const providerRow = rows.find((row) => row.kind === 'p');
    if (!providerRow) return null;
    const sources = new Map(rows.filter((row) => row.kind === 's').map((row) => [row.r.manufacturer_id as string, toSource(row.r)]));
    if (!manufacturerIds.every((id) => sources.has(id))) return null;
    const named = rows.filter((row) => row.kind === 'n').map((row) => toSubject(row.r)).sort(byAge);
    return { provider: toProvider(providerRow.r), sources, named, subjectsVersion: Number(rows.find((row) => row.kind === 'v')?.r.version ?? 0) };
  }

  /**
   * The provider and the sources of a batch, created when missing. When both exist (a steady
   * stream) this is one statement: the provider joined to the batch's sources.
   */
  async ensureProviderWithSources(tenantId: string, key: string, providerType: string, specs: readonly NewSourceSpec[], at: number) {
    const found = await this.findProviderWithSources(tenantId, key, specs.map((spec) => spec.manufacturerId));
    if (found) return found;
    const provider = await this.ensureProvider(tenantId, key, providerType, at);
    return { provider, sources: await this.ensureSources(tenantId, provider.id, specs, at) };
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

  async claimCameraImage(tenantId: string, sha256: string, eventId: string, providerId: string, at: number): Promise<boolean> {
    const claimed = await this.db('camera_trap_images')
      .insert({ tenant_id: tenantId, sha256, event_id: eventId, provider_id: providerId, created_at: at })
      .onConflict(['tenant_id', 'sha256'])
      .ignore()
      .returning('sha256');
    return claimed.length === 1;
  }
}
