/**
 * Shapes of the location field kinds (GeoJSON geometries, RFC 7946, longitude first).
 *
 * Point (given by the specification):
 *   {"type": "object", "required": ["type", "coordinates"], "properties": {
 *     "type": {"const": "Point"},
 *     "coordinates": {"type": "array", "items": {"type": "number"}, "minItems": 2, "maxItems": 2}}}
 *
 * Polygon (the specification leaves it open; our decision, a GeoJSON Polygon): `coordinates` is
 * an array (at least one) of linear rings; a ring is an array of at least 4 positions; a position
 * is exactly as a Point's `coordinates`.
 *   {"type": "object", "required": ["type", "coordinates"], "properties": {
 *     "type": {"const": "Polygon"},
 *     "coordinates": {"type": "array", "minItems": 1, "items":
 *       {"type": "array", "minItems": 4, "items": <position>}}}}
 * NOTE: that a ring is closed (first position = last) cannot be said in JSON Schema; it is not
 * checked.
 */
import { schemaIssue, type SchemaIssue } from './issues.js';
import { isJsonObject, joinPointer, type JsonObject } from './json-pointer.js';

export const POINT_SHAPE = {
  type: 'object',
  properties: {
    type: { const: 'Point' },
    coordinates: { type: 'array', items: { type: 'number' }, minItems: 2, maxItems: 2 },
  },
  required: ['type', 'coordinates'],
} as const;

export const POLYGON_SHAPE = {
  type: 'object',
  properties: {
    type: { const: 'Polygon' },
    coordinates: {
      type: 'array',
      minItems: 1,
      items: { type: 'array', minItems: 4, items: POINT_SHAPE.properties.coordinates },
    },
  },
  required: ['type', 'coordinates'],
} as const;

type Expectation = [keyword: string, expected: unknown, hint: string];

function expect(schema: unknown, pointer: string, what: string, rules: Expectation[], issues: SchemaIssue[]): schema is JsonObject {
  if (!isJsonObject(schema)) {
    issues.push(schemaIssue('schema_validation_error', {
      pointer, message: `${what} must be a schema object`, hints: [rules.map(([, , h]) => h).join('; ')],
    }));
    return false;
  }
  for (const [keyword, expected, hint] of rules) {
    if (schema[keyword] !== expected) {
      issues.push(schemaIssue('schema_validation_error', {
        pointer: joinPointer(pointer, keyword),
        message: `${what} must have \`${keyword}: ${JSON.stringify(expected)}\``,
        hints: [hint],
      }));
    }
  }
  return true;
}

function checkPosition(schema: unknown, pointer: string, what: string, issues: SchemaIssue[]): void {
  const ok = expect(schema, pointer, what, [
    ['type', 'array', 'a position is an array'],
    ['minItems', 2, 'a position has exactly 2 numbers: longitude, latitude'],
    ['maxItems', 2, 'a position has exactly 2 numbers: longitude, latitude'],
  ], issues);
  if (ok) expect(schema.items, joinPointer(pointer, 'items'), `${what} items`, [['type', 'number', 'coordinates are numbers']], issues);
}

function checkEnvelope(schema: JsonObject, pointer: string, kind: string, issues: SchemaIssue[]): JsonObject | undefined {
  expect(schema, pointer, `a ${kind} field`, [['type', 'object', `a ${kind} is a GeoJSON object`]], issues);
  const required = Array.isArray(schema.required) ? schema.required : [];
  for (const name of ['type', 'coordinates']) {
    if (!required.includes(name)) {
      issues.push(schemaIssue('schema_validation_error', {
        pointer: joinPointer(pointer, 'required'),
        message: `a ${kind} field must require \`${name}\``,
        hints: ['use `"required": ["type", "coordinates"]`'],
      }));
    }
  }
  const properties = isJsonObject(schema.properties) ? schema.properties : {};
  const coordinates = properties.coordinates;
  const at = joinPointer(pointer, 'properties', 'coordinates');
  if (!isJsonObject(coordinates)) {
    issues.push(schemaIssue('schema_validation_error', {
      pointer: at, message: `a ${kind} field must define \`coordinates\``, hints: [`see the ${kind} shape in schema/README.md`],
    }));
    return undefined;
  }
  return coordinates;
}

export function pointIssues(schema: JsonObject, pointer: string): SchemaIssue[] {
  const issues: SchemaIssue[] = [];
  const coordinates = checkEnvelope(schema, pointer, 'Point', issues);
  if (coordinates) checkPosition(coordinates, joinPointer(pointer, 'properties', 'coordinates'), 'Point `coordinates`', issues);
  return issues;
}

export function polygonIssues(schema: JsonObject, pointer: string): SchemaIssue[] {
  const issues: SchemaIssue[] = [];
  const coordinates = checkEnvelope(schema, pointer, 'Polygon', issues);
  if (!coordinates) return issues;
  const at = joinPointer(pointer, 'properties', 'coordinates');
  expect(coordinates, at, 'Polygon `coordinates`', [['type', 'array', 'coordinates is an array of linear rings']], issues);
  const ring = coordinates.items;
  const ringAt = joinPointer(at, 'items');
  if (expect(ring, ringAt, 'a Polygon ring', [['type', 'array', 'a ring is an array of positions']], issues)) {
    if (typeof ring.minItems !== 'number' || ring.minItems < 4) {
      issues.push(schemaIssue('schema_validation_error', {
        pointer: joinPointer(ringAt, 'minItems'), message: 'a Polygon ring must have `minItems` of at least 4',
        hints: ['a closed ring needs at least 4 positions (the first repeated last)'],
      }));
    }
    checkPosition(ring.items, joinPointer(ringAt, 'items'), 'a Polygon position', issues);
  }
  return issues;
}
