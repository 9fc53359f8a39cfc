import type { Services } from '../../app.js';
import type { PushAdmission } from '../../domain/push/admission.js';
import { PushService } from '../../domain/push/service.js';
import { SYNC_BASE_PATH } from '../../../protocol/sync.js';
import { pushAdmissionStep, pushHandlers } from '../handlers/push.js';
import { pushSchemas } from '../schemas/push.js';
import { type Route, json } from './types.js';

/** What the composition root gives the batched push: its admission (per process) and limits (server/config.ts `push`). */
export interface PushParts {
  admission: PushAdmission;
  budgetMs: number;
  bodyBytes: number;
}

/**
 * The batched push (issue 26 §4): `sync.push`, raw in both profiles as the rest of `sync.`.
 * Each entry runs through the service its single route calls; without idempotency (or `push`)
 * there is no route.
 */
export function pushRoutes(services: Services): Route[] {
  if (!services.push || !services.idempotency) return [];
  // Without the conflict service, entries resolving a conflict are 501 `not_supported`.
  const conflicts = services.conflicts ?? null;
  const push = new PushService({
    services: { events: services.events, patrols: services.patrols, patrolNotes: services.patrolNotes, patrolFiles: services.patrolFiles, conflicts },
    idempotency: services.idempotency,
  });
  const { admission, budgetMs, bodyBytes } = services.push;
  const h = pushHandlers({ push, admission, budgetMs, events: services.events, trustProxy: services.trustProxy });
  return [
    { name: 'sync.push', method: 'POST', paths: [`${SYNC_BASE_PATH}/push`], authenticate: true, admit: pushAdmissionStep(admission), body: json, bodyBytes, schema: pushSchemas.push, handler: h.push },
  ];
}
