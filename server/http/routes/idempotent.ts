import { errorBody } from '../schemas/common.js';
import type { ResponseSpec } from '../schemas/types.js';
import type { Route } from './types.js';

const REPLAYED = 'Idempotent-Replayed';

/**
 * Adds what `Idempotency-Key` changes to a keyed route's description (OpenAPI and the test
 * response check): the header, the replayed answers, 400 for a malformed key and 422 for a
 * reused one, and (creates) the 202 of a committed write whose answer was lost with an id the
 * server chose. Routes without `idempotent` are returned as they are.
 */
export function describeIdempotency(route: Route): Route {
  if (!route.idempotent) return route;
  const responses: Record<number, ResponseSpec> = {};
  for (const [status, spec] of Object.entries(route.schema.responses)) {
    const success = Number(status) >= 200 && Number(status) < 300;
    responses[Number(status)] = success ? { ...spec, headers: { ...spec.headers, [REPLAYED]: '`true` when this is the stored answer of an earlier request with the same Idempotency-Key.' } } : spec;
  }
  responses[400] ??= { description: 'Invalid input (a malformed Idempotency-Key too: 1–255 visible ASCII characters).', json: errorBody };
  responses[422] = { description: 'The Idempotency-Key was used before for another request (`idempotency_key_reused`, under `idempotency_key`).', json: errorBody };
  if (route.idempotent.created) {
    responses[202] = { description: 'A repeat of a create that was carried out but whose answer was lost, when the server chose the new record\'s id: read the record back.', json: errorBody };
  }
  const note =
    'Honours `Idempotency-Key` (1–255 visible ASCII characters; docs/sync.md "Idempotent writes"): a repeat with the same key and request is answered the stored answer ' +
    `(\`${REPLAYED}: true\`) without writing again; the same key with another request is 422.`;
  return { ...route, schema: { ...route.schema, description: route.schema.description ? `${route.schema.description}\n\n${note}` : note, responses } };
}
