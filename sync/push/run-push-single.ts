/**
 * The one-request-per-entry push: what a server without the batched push (an older one, 404 on
 * `/api/fieldops/v1/sync/push`) is sent, and how file entries recorded before staged uploads go.
 *
 * - Every record write carries the entry's id as its Idempotency-Key: a repeat after a lost
 *   answer is answered the server's stored answer, a success, never a conflict with itself.
 * - An update names its base: `Fieldops-Base-Revision` when a revision is known (the base
 *   entry's answer, or the revision pulled), else If-Match with the ETag pulled (events of an
 *   older server); a 412 marks it a conflict with the server's version kept beside it.
 * - Creates carry the id recorded offline. A 409 means the server has the record already: its
 *   version is read back; the same content marks the entry sent, other content a conflict.
 * - Any other 4xx rejects that entry with the server's reason (and, later, what depends on it).
 * - The revision in a 2xx answer is kept: a following edit of the record is based on it.
 */
import { describeErrorBody } from '../http-errors.js';
import { bodyText, header } from '../http.js';
import type { OutboxEntry, OutboxStatus } from '../outbox/model.js';
import type { SettledEntry } from '../outbox/store.js';
import { baseOf } from './batches.js';
import { readBackUrl, requestFor, sameAsRecorded, type SingleBase } from './requests.js';
import type { PushRun } from './run-state.js';

const UPDATES = new Set(['event.update', 'patrol.update', 'segment.update']);

export async function pushOne(run: PushRun, entry: OutboxEntry): Promise<void> {
  const { server } = run.options;
  const settle = (status: OutboxStatus, extra: Omit<SettledEntry, 'id' | 'status'> = {}) => run.settle([{ entry, outcome: { id: entry.id, status, ...extra } }]);
  const dependency = await run.dependency(entry);
  if (dependency === 'wait') return;
  if (dependency !== 'send') return settle('rejected', { reason: dependency });
  const base = await singleBase(run, entry);
  if (base === 'wait') return;
  const response = await run.send(requestFor(server, entry, base));
  const etag = header(response, 'etag') ?? null;
  if (response.status < 300) return settle('sent', { etag, revision: revisionIn(bodyText(response)) });
  if (response.status === 409 && !UPDATES.has(entry.kind) && entry.kind !== 'conflict.resolve') {
    const theirs = await readBack(run, entry);
    if (theirs && sameAsRecorded(entry, theirs.body)) {
      run.report.alreadyThere++;
      return settle('sent', { etag: theirs.etag, revision: revisionIn(theirs.body) });
    }
    return settle('conflict', { reason: `the server already has ${entry.target} with other content (409)`, theirs: theirs ? { etag: theirs.etag, record: theirs.body } : null });
  }
  if (response.status === 412) {
    const theirs = await readBack(run, entry);
    return settle('conflict', { reason: 'changed on the server since it was pulled (412)', theirs: theirs ? { etag: theirs.etag, record: theirs.body } : null });
  }
  return settle('rejected', { reason: `HTTP ${response.status}: ${describeErrorBody(response) ?? 'rejected'}` });
}

/** The server's current version of what the entry created or changed (null: not readable). */
export async function readBack(run: PushRun, entry: OutboxEntry): Promise<{ body: unknown; etag: string | null } | null> {
  const url = readBackUrl(run.options.server, entry);
  if (!url) return null;
  const response = await run.send({ method: 'GET', url, headers: { accept: 'application/json' } });
  if (response.status !== 200) return null;
  return { body: JSON.parse(bodyText(response)), etag: header(response, 'etag') ?? null };
}

/** The base a one-by-one update names (see the file's comment); `wait` while its base entry is another user's. */
async function singleBase(run: PushRun, entry: OutboxEntry): Promise<SingleBase | 'wait'> {
  if (!UPDATES.has(entry.kind)) return { revision: null, etag: null };
  const choice = await baseOf(entry, new Set(), (id) => run.outbox.get(id));
  if ('wait' in choice) return 'wait';
  // No revision known (an older server's records): the ETag the laptop pulled, as If-Match.
  if ('unknown' in choice) return { revision: null, etag: entry.baseEtag ?? null };
  if (choice.base && 'revision' in choice.base) return { revision: choice.base.revision, etag: null };
  // A base entry answered without a revision (an older server): the ETag its answer carried.
  const baseEntry = choice.base && 'entry' in choice.base ? await run.outbox.get(choice.base.entry) : null;
  return { revision: null, etag: baseEntry?.etag ?? entry.baseEtag ?? null };
}

/** The `revision` of a fieldops-profile record body (text or parsed), or null. */
export function revisionIn(body: unknown): number | null {
  let record = body;
  if (typeof body === 'string') {
    try {
      record = JSON.parse(body);
    } catch {
      return null;
    }
  }
  const revision = (record as { revision?: unknown } | null)?.revision;
  return typeof revision === 'number' && Number.isSafeInteger(revision) ? revision : null;
}
