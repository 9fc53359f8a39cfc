import { BodyReader } from '../catalog/fields.js';
import { COMMON_READ_ONLY, COMMON_WRITABLE, presentOnly, readCommonFields } from '../catalog/input.js';
import type { PatrolType } from '../model.js';

/**
 * Reads a patrol type POST/PUT/PATCH body (CONTRACT §3). Read-only fields are ignored (clients
 * send back what they read); unknown fields are 400; every error is reported at once.
 */
export function readPatrolTypeBody(body: unknown, mode: 'create' | 'replace' | 'patch'): Partial<PatrolType> {
  const reader = BodyReader.of(body);
  reader.rejectUnknown(COMMON_WRITABLE, COMMON_READ_ONLY);
  const fields = readCommonFields(reader, mode);
  reader.finish();
  return presentOnly(fields);
}
