import { InputError } from '../errors.js';

/** Limits of one imported feature collection. */
export const MAX_FEATURES = 10_000;
export const MAX_POSITIONS = 1_000_000;
export const MAX_PROPERTIES_BYTES = 16 * 1024;

export interface ParsedFeature {
  name: string;
  geometry: Record<string, unknown>;
  properties: Record<string, unknown>;
  bbox: [number, number, number, number];
}

const GEOMETRY_DEPTH: Record<string, number> = { Point: 0, MultiPoint: 1, LineString: 1, MultiLineString: 2, Polygon: 2, MultiPolygon: 3 };
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const fail = (path: string, message: string, hint: string): never => {
  throw new InputError(`${path}: ${message}`, { [path]: [{ code: 'invalid', message, hints: [hint] }] });
};

/**
 * Checks a GeoJSON FeatureCollection (RFC 7946) and reads its features with their bounding
 * boxes. The first problem is reported with its place (`features[3].geometry.coordinates`).
 */
export function readFeatureCollection(input: unknown): { name: string | null; features: ParsedFeature[] } {
  if (!isObject(input) || input.type !== 'FeatureCollection' || !Array.isArray(input.features)) {
    fail('$', 'not a GeoJSON FeatureCollection', 'the file is one object {"type": "FeatureCollection", "features": [...]} (RFC 7946)');
  }
  const collection = input as { name?: unknown; features: unknown[] };
  if (collection.features.length === 0) fail('features', 'the collection has no features', 'add at least one Feature');
  if (collection.features.length > MAX_FEATURES) fail('features', `${collection.features.length} features; at most ${MAX_FEATURES} are imported at once`, 'split the file into several feature sets (--name)');
  const budget = { positions: 0 };
  const features = collection.features.map((feature, index) => readFeature(feature, `features[${index}]`, budget));
  return { name: typeof collection.name === 'string' && collection.name.trim() ? collection.name.trim() : null, features };
}

function readFeature(feature: unknown, path: string, budget: { positions: number }): ParsedFeature {
  if (!isObject(feature) || feature.type !== 'Feature') return fail(path, 'not a Feature', 'each item of "features" is {"type": "Feature", "geometry": {...}, "properties": {...}}');
  const properties = feature.properties ?? {};
  if (!isObject(properties)) return fail(`${path}.properties`, 'properties is not an object', 'use an object, or null');
  if (Buffer.byteLength(JSON.stringify(properties)) > MAX_PROPERTIES_BYTES) return fail(`${path}.properties`, `more than ${MAX_PROPERTIES_BYTES} bytes of properties`, 'keep the attributes the map shows (title, stroke, fill...)');
  const geometry = feature.geometry;
  if (!isObject(geometry)) return fail(`${path}.geometry`, 'a feature without a geometry', 'every feature has a geometry (null geometries are not imported)');
  const box: [number, number, number, number] = [Infinity, Infinity, -Infinity, -Infinity];
  readGeometry(geometry, `${path}.geometry`, box, budget, 0);
  const name = [properties.title, properties.name].find((value) => typeof value === 'string' && value.trim()) as string | undefined;
  return { name: (name ?? '').trim().slice(0, 255), geometry, properties, bbox: box };
}

function readGeometry(geometry: Record<string, unknown>, path: string, box: [number, number, number, number], budget: { positions: number }, nesting: number): void {
  const type = geometry.type;
  if (type === 'GeometryCollection') {
    if (nesting > 0 || !Array.isArray(geometry.geometries) || !geometry.geometries.length) fail(path, 'a GeometryCollection needs a non-empty "geometries" list (not nested)', 'or use a Multi* geometry');
    (geometry.geometries as unknown[]).forEach((item, index) => {
      if (!isObject(item)) fail(`${path}.geometries[${index}]`, 'not a geometry', 'each item is a GeoJSON geometry object');
      readGeometry(item as Record<string, unknown>, `${path}.geometries[${index}]`, box, budget, nesting + 1);
    });
    return;
  }
  const depth = typeof type === 'string' ? GEOMETRY_DEPTH[type] : undefined;
  if (depth === undefined) fail(`${path}.type`, `unknown geometry type ${JSON.stringify(type)}`, `one of ${Object.keys(GEOMETRY_DEPTH).join(', ')}, GeometryCollection`);
  readCoordinates(geometry.coordinates, depth!, `${path}.coordinates`, box, budget, type as string);
}

function readCoordinates(value: unknown, depth: number, path: string, box: [number, number, number, number], budget: { positions: number }, type: string): void {
  if (depth === 0) {
    if (!Array.isArray(value) || value.length < 2 || value.length > 3 || !value.every((n) => typeof n === 'number' && Number.isFinite(n))) {
      fail(path, 'not a position', 'a position is [longitude, latitude] or [longitude, latitude, altitude] in degrees');
    }
    const [longitude, latitude] = value as number[];
    if (Math.abs(longitude!) > 180 || Math.abs(latitude!) > 90) fail(path, `[${longitude}, ${latitude}] is outside [-180..180, -90..90]`, 'GeoJSON positions are [longitude, latitude] (WGS 84): check the order and the projection');
    if (++budget.positions > MAX_POSITIONS) fail(path, `more than ${MAX_POSITIONS} positions in the file`, 'simplify the geometries, or split the file');
    box[0] = Math.min(box[0], longitude!);
    box[1] = Math.min(box[1], latitude!);
    box[2] = Math.max(box[2], longitude!);
    box[3] = Math.max(box[3], latitude!);
    return;
  }
  if (!Array.isArray(value) || value.length === 0) fail(path, `empty or missing coordinates of a ${type}`, 'see RFC 7946 §3.1 for the nesting of each geometry type');
  const list = value as unknown[];
  if (depth === 1 && (type === 'LineString' || type === 'MultiLineString') && list.length < 2) fail(path, 'a LineString has at least 2 positions', 'or make it a Point');
  if (depth === 1 && (type === 'Polygon' || type === 'MultiPolygon') && list.length < 4) fail(path, 'a polygon ring has at least 4 positions (closed)', 'repeat the first position at the end');
  list.forEach((item, index) => readCoordinates(item, depth - 1, `${path}[${index}]`, box, budget, type));
}
