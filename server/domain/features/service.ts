import type { Clock } from '../../db/time.js';
import { type RequestContext, requirePermission } from '../context.js';
import { InputError, NotFoundError } from '../errors.js';
import { isUuid, timeOrderedUuid } from '../ids.js';
import type { Store } from '../ports.js';
import type { FeatureSet, FeatureSetSummary, SpatialFeature } from './ports.js';
import { MAX_FEATURES, readFeatureCollection } from './geojson.js';

export type BBox = [number, number, number, number];

/** What an import did. */
export interface FeatureImport {
  set: FeatureSet;
  features: number;
  replaced: boolean;
}

/** `west,south,east,north` in degrees (the map's `bbox` filter). */
export function parseBBox(text: string | undefined): BBox | null {
  if (text === undefined || text === '') return null;
  const parts = text.split(',').map((part) => (part.trim() === '' ? NaN : Number(part)));
  const [west, south, east, north] = parts as BBox;
  if (parts.length !== 4 || !parts.every(Number.isFinite) || Math.abs(west) > 180 || Math.abs(east) > 180 || Math.abs(south) > 90 || Math.abs(north) > 90 || south > north || west > east) {
    throw InputError.field('bbox', 'invalid', 'bbox is west,south,east,north in degrees.', ['For example bbox=36.5,-1.5,37.2,-1.0']);
  }
  return [west, south, east, north];
}

/**
 * Spatial feature sets (issue 27 §6): imported from a GeoJSON FeatureCollection by an
 * administrator (`fieldops admin features import`), read by the map (`featureset/`).
 */
export class FeatureService {
  constructor(protected readonly deps: { store: Store; clock: Clock }) {}

  /** Imports a collection as the tenant's set `name` (replacing that set's features if it exists). */
  async importCollection(tenantName: string, input: unknown, name: string | null): Promise<FeatureImport> {
    const tenant = await this.deps.store.repos.tenants.findByName(tenantName);
    if (!tenant) throw new NotFoundError(`No tenant "${tenantName}".`);
    const parsed = readFeatureCollection(input);
    const setName = (name ?? parsed.name ?? '').trim();
    if (!setName) throw InputError.field('name', 'required', 'The feature set needs a name.', ['Give --name, or a "name" member in the collection.']);
    if (setName.length > 200) throw InputError.field('name', 'too_long', 'A feature set name is at most 200 characters.');
    const now = this.deps.clock.now();
    const set: FeatureSet = { id: timeOrderedUuid(now), tenantId: tenant.id, name: setName, featureType: setName, createdAt: now, updatedAt: now };
    const features: SpatialFeature[] = parsed.features.map((feature) => ({ id: timeOrderedUuid(now), tenantId: tenant.id, featuresetId: set.id, ...feature, createdAt: now }));
    const { id, replaced } = await this.deps.store.transaction((repos) => repos.features.replaceSet(set, features));
    return { set: { ...set, id }, features: features.length, replaced };
  }

  async listSets(ctx: RequestContext): Promise<FeatureSetSummary[]> {
    const principal = requirePermission(ctx, 'view_feature');
    return this.deps.store.repos.features.listSets(principal.tenantId);
  }

  /** A set with its features (those meeting `bbox` when given). */
  async getSet(ctx: RequestContext, id: string, bbox: BBox | null): Promise<{ set: FeatureSet; features: SpatialFeature[] }> {
    const principal = requirePermission(ctx, 'view_feature');
    const { features } = this.deps.store.repos;
    const set = isUuid(id) ? await features.findSet(principal.tenantId, id) : null;
    if (!set) throw new NotFoundError('No such feature set.');
    return { set, features: await features.listFeatures(principal.tenantId, set.id, bbox, MAX_FEATURES) };
  }

  async getFeature(ctx: RequestContext, id: string): Promise<{ feature: SpatialFeature; set: FeatureSet }> {
    const principal = requirePermission(ctx, 'view_feature');
    const { features } = this.deps.store.repos;
    const feature = isUuid(id) ? await features.findFeature(principal.tenantId, id) : null;
    const set = feature ? await features.findSet(principal.tenantId, feature.featuresetId) : null;
    if (!feature || !set) throw new NotFoundError('No such feature.');
    return { feature, set };
  }
}
