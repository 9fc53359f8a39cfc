import { schemaFromBody } from '../catalog/schema-write.js';
import { BodyReader } from '../catalog/fields.js';
import { InputError } from '../errors.js';
import type { PatrolType } from '../model.js';

export const PRIORITIES = [0, 100, 200, 300] as const;
/** A slug: it must be addressable in paths (no `/` or `.`). */
export const VALUE_PATTERN = /^[A-Za-z0-9_-]+$/;

const WRITABLE = ['value', 'display', 'icon', 'default_priority', 'is_active', 'schema'] as const;
const READ_ONLY = ['id', 'ordernum', 'icon_id', 'image_url', 'updated_at'] as const;

/** The writable fields present in a body (schema as normalised text); absent means "leave as it is". */
export type PatrolTypeChanges = Partial<PatrolType>;

/**
 * Reads a POST/PUT/PATCH body. POST and PUT need `value` and `display`; PATCH needs nothing.
 * Read-only fields are ignored (clients send back what they read); unknown fields are 400.
 * Every field error is reported, the schema's under the key `schema`.
 */
export function readPatrolTypeBody(body: unknown, mode: 'create' | 'replace' | 'patch'): PatrolTypeChanges {
  const reader = BodyReader.of(body);
  const required = mode !== 'patch';
  reader.rejectUnknown(WRITABLE, READ_ONLY);
  const changes: PatrolTypeChanges = {
    value: reader.string('value', { max: 50, pattern: VALUE_PATTERN, patternHint: 'Use letters, digits, "-" and "_" only.', required }),
    display: reader.string('display', { max: 255, required }),
    icon: reader.string('icon', { max: 255 }),
    defaultPriority: reader.oneOf('default_priority', PRIORITIES),
    isActive: reader.boolean('is_active'),
  };
  try {
    changes.schema = schemaFromBody(reader.body);
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    Object.assign(reader.errors, error.fields);
  }
  reader.finish();
  for (const key of Object.keys(changes) as Array<keyof PatrolTypeChanges>) if (changes[key] === undefined) delete changes[key];
  return changes;
}
