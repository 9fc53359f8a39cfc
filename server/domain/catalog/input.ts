import { BodyReader } from './fields.js';
import { schemaFromBody } from './schema-write.js';
import { InputError } from '../errors.js';
import type { CatalogItem } from '../model.js';

export const PRIORITIES = [0, 100, 200, 300] as const;
/** A slug: it must be addressable in paths (no `/` or `.`). */
export const VALUE_PATTERN = /^[A-Za-z0-9_-]+$/;

export const COMMON_WRITABLE = ['value', 'display', 'icon', 'default_priority', 'is_active', 'schema'] as const;
export const COMMON_READ_ONLY = ['id', 'ordernum', 'icon_id', 'image_url', 'updated_at'] as const;

/**
 * Reads the fields every catalog item has. POST and PUT need `value` and `display`; PATCH
 * needs nothing. The schema follows "Writing a schema"; its errors are kept under `schema`.
 * Errors are collected on the reader; the caller adds its own fields, then `finish()`es.
 */
export function readCommonFields(reader: BodyReader, mode: 'create' | 'replace' | 'patch'): Partial<CatalogItem> {
  const required = mode !== 'patch';
  const fields: Partial<CatalogItem> = {
    value: reader.string('value', { max: 50, pattern: VALUE_PATTERN, patternHint: 'Use letters, digits, "-" and "_" only.', required }),
    display: reader.string('display', { max: 255, required }),
    icon: reader.string('icon', { max: 255 }),
    defaultPriority: reader.oneOf('default_priority', PRIORITIES),
    isActive: reader.boolean('is_active'),
  };
  try {
    fields.schema = schemaFromBody(reader.body);
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    Object.assign(reader.errors, error.fields);
  }
  return fields;
}

/** Drops the fields a body did not carry, so that they stay as they are. */
export function presentOnly<T extends object>(fields: T): T {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as T;
}
