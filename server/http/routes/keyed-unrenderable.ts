import type { KeyedRecordKind } from '../../domain/idempotency/ports.js';
import type { IdempotentRoute } from './types.js';

/**
 * `idempotent` of a keyed write whose record a lost answer cannot be re-rendered from: a
 * create whose id the server chose and which the sync feed does not mark (sources, providers,
 * assignments, messages, observations, group members), or an update with no GET of one record
 * (providers, assignments). A repeat whose first answer was stored is answered that answer,
 * as on any keyed route; one whose write committed but whose answer was lost (the server
 * stopped in between) is answered 202 with the error body's shape: carried out, read the record
 * back (docs/sync.md "Idempotent writes"; middleware/idempotency.ts). `created` without a
 * `readBack` is what asks for that 202, and what describes it in OpenAPI (idempotent.ts).
 */
export function unrenderable(recordKind: KeyedRecordKind): IdempotentRoute {
  return { recordKind, readBack: null, status: 202, created: { param: 'id', marked: false } };
}
