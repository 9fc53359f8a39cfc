/** Spatial feature sets imported from GeoJSON (issue 27 §6). */
export interface FeatureSet {
  id: string;
  tenantId: string;
  name: string;
  /** The type features of the set are shown under when they name none (`type_name`). */
  featureType: string;
  createdAt: number;
  updatedAt: number;
}

export interface SpatialFeature {
  id: string;
  tenantId: string;
  featuresetId: string;
  name: string;
  geometry: Record<string, unknown>;
  properties: Record<string, unknown>;
  /** [west, south, east, north] of the geometry. */
  bbox: [number, number, number, number];
  createdAt: number;
}

export interface FeatureSetSummary extends FeatureSet {
  featureCount: number;
}

export interface FeatureRepository {
  /** Creates the set, or replaces the features of the tenant's set of that name; returns its id. */
  replaceSet(set: FeatureSet, features: readonly SpatialFeature[]): Promise<{ id: string; replaced: boolean }>;
  listSets(tenantId: string): Promise<FeatureSetSummary[]>;
  findSet(tenantId: string, id: string): Promise<FeatureSet | null>;
  /** Features of a set (all sets when null) whose bbox meets `bbox`, in import order (ids are time-ordered), at most `limit`. */
  listFeatures(tenantId: string, setId: string | null, bbox: [number, number, number, number] | null, limit: number): Promise<SpatialFeature[]>;
  findFeature(tenantId: string, id: string): Promise<SpatialFeature | null>;
}
