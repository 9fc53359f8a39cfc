import { ConflictError } from '../errors.js';
import type { EventType } from '../model.js';
import type { Repositories } from '../ports.js';

/** A v2 type's row together with the revision (catalog history `sequence`) that row is; null when it has no history. */
export interface CheckedEventType {
  row: EventType;
  sequence: number | null;
}

/** How often the read is redone when the type keeps moving under it (then 409). */
const TRIES = 3;

/**
 * Issue 28 §4: an event's `schema_revision` is the revision its details were checked against, so
 * the sequence is read with the row the check uses, not later in the write's transaction (a
 * publish or restore between check and write would otherwise record the event against a form it
 * was never checked against). The reads run outside a transaction: row, sequence, row again. A
 * row write and its history entry commit together (CatalogService) and every such write moves
 * the row's `revision`, so an unchanged `revision` around the sequence read means that sequence
 * is the first row's. Null when there is no such v2 type.
 */
export async function readCheckedEventType(repos: Repositories, tenantId: string, value: string): Promise<CheckedEventType | null> {
  for (let attempt = 1; ; attempt++) {
    const row = await repos.eventTypes.find(tenantId, value);
    if (!row) return null;
    const sequence = await repos.catalog.latestSequence(tenantId, 'eventtypes', row.id);
    const again = await repos.eventTypes.find(tenantId, value);
    if (again && again.id === row.id && again.revision === row.revision) return { row, sequence: sequence > 0 ? sequence : null };
    if (attempt >= TRIES) throw new ConflictError(`Event type "${value}" kept changing while the details were checked; send the event again.`);
  }
}
