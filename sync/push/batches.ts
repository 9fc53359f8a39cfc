/**
 * Outbox entries as batched-push entries (protocol/push.ts), and their bases at push time.
 *
 * The base an update was recorded with (sync/outbox/bases.ts) is turned into the wire's `base`:
 * - a base entry in the same batch, or still unsent, is named `{entry: key}` (the server resolves
 *   it in batch order from that key's stored answer);
 * - a base entry answered with a revision (and no conflict) gives `{revision}` (it survives the
 *   server forgetting keys after 30 days); one answered with conflicts stays `{entry}`, so the
 *   server knows which fields it lost (`chainLost`);
 * - a base entry rejected or dropped never reached the server: its own base is used instead;
 * - a base entry pending but not ours to send now (held for another user) holds this one too.
 */
import { MAX_PUSH_ENTRIES, type PushBase, type PushEntry, type PushOp } from '../../protocol/push.js';
import { answeredWithRevision } from '../outbox/bases.js';
import type { OutboxEntry } from '../outbox/model.js';

/** The most a request body may carry (the server takes 4 MiB; room is left for the envelope). */
export const MAX_BATCH_BYTES = 3 * 1024 * 1024;
export { MAX_PUSH_ENTRIES };

/** Looks an entry up: this batch's first, then the outbox. */
export type EntryLookup = (id: string) => Promise<OutboxEntry | null>;

export type BaseChoice = { base: PushBase | undefined } | { wait: string } | { unknown: string };

const UPDATES = new Set<OutboxEntry['kind']>(['event.update', 'patrol.update', 'segment.update']);

export const isUpdate = (entry: OutboxEntry) => UPDATES.has(entry.kind);
export const isFileEntry = (entry: OutboxEntry) => entry.kind === 'event.file' || entry.kind === 'patrol.file';

/**
 * The wire base of `entry`, with `inBatch` the keys sent in the same request before it. `wait`:
 * the base entry is pending and not in this push's hands (the entry waits with it).
 */
export async function baseOf(entry: OutboxEntry, inBatch: ReadonlySet<string>, lookup: EntryLookup): Promise<BaseChoice> {
  if (!isUpdate(entry)) return { base: undefined };
  let from: Pick<OutboxEntry, 'baseEntry' | 'baseRevision'> = entry;
  for (let hops = 0; from.baseEntry && hops < 1000; hops++) {
    const key = from.baseEntry;
    if (inBatch.has(key)) return { base: { entry: key } };
    const base = await lookup(key);
    if (!base) break;
    if (base.status === 'pending') return { wait: key };
    if (base.status === 'sent') return { base: answeredWithRevision(base) ? { revision: base.revision! } : { entry: key } };
    // A conflict the server's merge kept (rows in outbox_conflicts) was committed: follow it.
    if (base.status === 'conflict' && base.outcome) return { base: { entry: key } };
    // Rejected, dropped, or a conflict of the one-by-one push (never applied): its own base.
    from = base;
  }
  // The chain broke: the revision this entry was recorded against, else the dead entry's. An
  // update is never sent without a base (it would overwrite what changed on the server).
  const revision = typeof entry.baseRevision === 'number' ? entry.baseRevision : from.baseRevision;
  if (typeof revision === 'number') return { base: { revision } };
  return { unknown: 'the change it followed was not applied and the version it was made on is unknown: pull the record (fieldops pull) and record the change again' };
}

/** The wire entry of an outbox entry (`body` given for file entries: `{id, upload, comment}`). */
export function wireEntry(entry: OutboxEntry, base: PushBase | undefined, body: unknown = wireBody(entry), inBatch?: ReadonlySet<string>): PushEntry {
  const wire: PushEntry = { key: entry.id, op: entry.kind as PushOp, body };
  if (!entry.kind.endsWith('.create') && entry.target) wire.id = entry.target;
  if (entry.kind === 'segment.update') {
    const segment = (entry.body as { id?: unknown }).id;
    if (typeof segment === 'string') wire.segment = segment;
  }
  if (base) wire.base = base;
  // `after` only for a dependency in the same request: one already settled here may be unknown
  // to the server under its key (a create settled by reading it back, or a key past retention),
  // and the laptop has already checked it succeeded. Without `inBatch` it is always sent.
  if (entry.dependsOn && (!inBatch || inBatch.has(entry.dependsOn))) wire.after = [entry.dependsOn];
  if (entry.userId) wire.recorded_by = entry.userId;
  return wire;
}

/** What the single route would take as its JSON body. */
function wireBody(entry: OutboxEntry): unknown {
  if (entry.kind === 'conflict.resolve') return { choice: (entry.body as { choice?: unknown }).choice };
  if (entry.kind === 'segment.update') {
    // The segment is named by the entry's `segment`, not in the body.
    const { id: _segment, ...rest } = entry.body as Record<string, unknown>;
    return rest;
  }
  return entry.body;
}

/** JSON size of a wire entry, plus its separator. */
export const wireBytes = (wire: PushEntry) => Buffer.byteLength(JSON.stringify(wire)) + 1;

/**
 * Whether a batch holding `count` entries of `bytes` can take one more of `next` bytes under
 * `limit` entries (halved after a 429 without Retry-After) and MAX_BATCH_BYTES. A first entry
 * always fits (one too large alone is the server's to refuse).
 */
export function fits(count: number, bytes: number, next: number, limit: number): boolean {
  if (count === 0) return true;
  return count < Math.min(limit, MAX_PUSH_ENTRIES) && bytes + next <= MAX_BATCH_BYTES;
}
