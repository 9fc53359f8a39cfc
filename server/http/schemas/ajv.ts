import { type Ajv, createAjv } from '../../../schema/ajv-factory.js';
import { isUuid } from '../../domain/ids.js';
import { parseIsoWithOffset } from '../../domain/time-input.js';

/**
 * The validator of the HTTP schemas: the toolkit's Ajv configuration (2020-12, all errors, no
 * type coercion), with `date-time` and `uuid` checked by the very functions the domain readers
 * use, so that a schema and its reader cannot disagree on what a timestamp or an id is.
 * (ISO 8601 with an offset, seconds optional, CONTRACT §1; the 8-4-4-4-12 hex form.)
 */
export function createHttpAjv(): Ajv {
  const ajv = createAjv();
  ajv.addFormat('date-time', (value: string) => parseIsoWithOffset(value) !== null);
  ajv.addFormat('uuid', (value: string) => isUuid(value));
  return ajv;
}
