import type { FeatureRepository, FeatureSet, FeatureSetSummary, SpatialFeature } from '../../domain/features/ports.js';
import { type Executor, jsonColumn, parseJsonColumn } from '../rows.js';
import type { Dialect } from '../knex.js';
import type { ChangeSet } from '../../domain/sync/ports.js';
import { fromDbMillis } from '../time.js';

type Row = Record<string, unknown>;

const toSet = (row: Row): FeatureSet => ({
  id: String(row.id), tenantId: String(row.tenant_id), name: String(row.name), featureType: String(row.feature_type ?? ''), createdAt: fromDbMillis(row.created_at), updatedAt: fromDbMillis(row.updated_at),
});

const toFeature = (row: Row): SpatialFeature => ({
  id: String(row.id),
  tenantId: String(row.tenant_id),
  featuresetId: String(row.featureset_id),
  name: String(row.name ?? ''),
  geometry: parseJsonColumn<Record<string, unknown>>(row.geometry, {}),
  properties: parseJsonColumn<Record<string, unknown>>(row.properties, {}),
  bbox: [Number(row.min_longitude), Number(row.min_latitude), Number(row.max_longitude), Number(row.max_latitude)],
  createdAt: fromDbMillis(row.created_at),
});

/** Rows inserted per statement (SQLite allows 999 bound values; a feature row binds 12). */
const CHUNK = 50;

/** Feature sets and their features (not fed records: no change-set marks). Tenant-scoped. */
export class KnexFeatureRepository implements FeatureRepository {
  constructor(
    protected readonly db: Executor,
    protected readonly dialect: Dialect,
    protected readonly changes: ChangeSet,
  ) {}

  /** Run inside `store.transaction`: the set and all its features change together. */
  async replaceSet(set: FeatureSet, features: readonly SpatialFeature[]): Promise<{ id: string; replaced: boolean }> {
    const existing = (await this.db('feature_sets').where({ tenant_id: set.tenantId, name: set.name }).first('id')) as Row | undefined;
    const id = existing ? String(existing.id) : set.id;
    if (existing) {
      await this.db('features').where({ tenant_id: set.tenantId, featureset_id: id }).delete();
      await this.db('feature_sets').where({ id }).update({ feature_type: set.featureType, updated_at: set.updatedAt });
    } else {
      await this.db('feature_sets').insert({ id, tenant_id: set.tenantId, name: set.name, feature_type: set.featureType, created_at: set.createdAt, updated_at: set.updatedAt });
    }
    for (let i = 0; i < features.length; i += CHUNK) {
      await this.db('features').insert(
        features.slice(i, i + CHUNK).map((feature) => ({
          id: feature.id, tenant_id: feature.tenantId, featureset_id: id, name: feature.name, geometry: jsonColumn(feature.geometry), properties: jsonColumn(feature.properties),
          min_longitude: feature.bbox[0], min_latitude: feature.bbox[1], max_longitude: feature.bbox[2], max_latitude: feature.bbox[3], created_at: feature.createdAt,
        })),
      );
    }
    return { id, replaced: Boolean(existing) };
  }

  async listSets(tenantId: string): Promise<FeatureSetSummary[]> {
    const rows = (await this.db('feature_sets as s')
      .leftJoin('features as f', 'f.featureset_id', 's.id')
      .where('s.tenant_id', tenantId)
      .groupBy('s.id', 's.tenant_id', 's.name', 's.feature_type', 's.created_at', 's.updated_at')
      .orderBy('s.name')
      .select('s.id', 's.tenant_id', 's.name', 's.feature_type', 's.created_at', 's.updated_at')
      .count({ n: 'f.id' })) as Row[];
    return rows.map((row) => ({ ...toSet(row), featureCount: Number(row.n ?? 0) }));
  }

  async findSet(tenantId: string, id: string): Promise<FeatureSet | null> {
    const row = (await this.db('feature_sets').where({ tenant_id: tenantId, id }).first()) as Row | undefined;
    return row ? toSet(row) : null;
  }

  async listFeatures(tenantId: string, setId: string | null, bbox: [number, number, number, number] | null, limit: number): Promise<SpatialFeature[]> {
    const query = this.db('features').where('tenant_id', tenantId);
    if (setId !== null) query.andWhere('featureset_id', setId);
    if (bbox) {
      const [west, south, east, north] = bbox;
      query.andWhere('min_longitude', '<=', east).andWhere('max_longitude', '>=', west).andWhere('min_latitude', '<=', north).andWhere('max_latitude', '>=', south);
    }
    return ((await query.orderBy('id').limit(limit)) as Row[]).map(toFeature);
  }

  async findFeature(tenantId: string, id: string): Promise<SpatialFeature | null> {
    const row = (await this.db('features').where({ tenant_id: tenantId, id }).first()) as Row | undefined;
    return row ? toFeature(row) : null;
  }
}
