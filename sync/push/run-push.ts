/**
 * `fieldops push`: sends the outbox in recorded order, exactly once, many entries per request
 * (`POST /api/fieldops/v1/sync/push`, protocol/push.ts; issue 26 §4).
 *
 * - Entries go in batches of at most MAX_PUSH_ENTRIES and 3 MiB, each entry keyed by its outbox
 *   id (its Idempotency-Key), with its base (batches.ts), the create it follows (`after`) and who
 *   recorded it. A batch is sent again after a lost answer with the same keys (the transport's
 *   retry, or the next push): the server answers those from its store (`replayed`), never a
 *   conflict with themselves.
 * - Each answer is stored in one mirror transaction, after it arrived (outcomes.ts): a push killed
 *   at any point is resumed by the next one, which re-sends the same keys.
 * - 429 without Retry-After (the batch can never fit) or 413: the batch is halved and sent again.
 *   429 with Retry-After: the transport waits as told (sync/retry.ts, at most FIELDOPS_RETRIES
 *   tries), then the push stops: "server busy; retry in N s".
 * - A server without the batched push (404) gets the rest one by one (run-push-single.ts), as do
 *   updates based on an older server's ETag only and file entries recorded before staged uploads.
 * - Files staged for a resumable upload go last: each is uploaded (sync/push/uploads.ts), then
 *   their attaches go in a batch; the staged copy is removed once the server confirmed its hash.
 * - Observations of one source go in batches of their own (the sensor API takes up to 1000 per
 *   request and treats a repeat of the same source and `recorded_at` as a duplicate, 200).
 * - A network failure, a 5xx, 401 or 408 stops the push: the rest stays queued. An interruption
 *   (Ctrl-C) stops it between requests, and before any retry of the request in flight.
 */
import { describeErrorBody } from '../http-errors.js';
import { TransportError, bodyText, header } from '../http.js';
import { ClientFailure } from '../errors.js';
import type { Knex } from 'knex';
import { releaseStagedFile } from '../outbox/attachments.js';
import type { OutboxEntry, OutboxStatus } from '../outbox/model.js';
import type { PushEntry, PushResponse } from '../../protocol/push.js';
import { MAX_PUSH_ENTRIES, baseOf, fits, isFileEntry, isUpdate, wireBytes, wireEntry } from './batches.js';
import { decide } from './outcomes.js';
import { pushOne, readBack, revisionIn } from './run-push-single.js';
import { observationBatch, sameAsRecorded } from './requests.js';
import { PushRun, Stop, type PushOptions, type PushReport } from './run-state.js';
import { UploadRefused, uploadFile } from './uploads.js';
import { crashPoint } from '../testing/crash-points.js';

export { Stop, type PushEvent, type PushInterrupt, type PushOptions, type PushOutcome, type PushReport } from './run-state.js';

export const OBSERVATION_BATCH = 1000;
export const PUSH_PATH = '/api/fieldops/v1/sync/push';
const PAGE = 2000;

interface Batch {
  entries: OutboxEntry[];
  wires: PushEntry[];
}

/** A file entry staged for a resumable upload (sha256 and size recorded); older ones go one by one as multipart. */
const staged = (entry: OutboxEntry) => {
  const body = entry.body as { sha256?: unknown; size?: unknown };
  return isFileEntry(entry) && typeof body.sha256 === 'string' && typeof body.size === 'number';
};

/**
 * An update recorded against an older server's ETag only (no revision, no base entry): the
 * batch has no If-Match, so it goes one by one with it rather than blind.
 */
const etagOnly = (entry: OutboxEntry) => isUpdate(entry) && entry.baseEntry === null && entry.baseRevision === null && !!entry.baseEtag;
const oneByOne = (entry: OutboxEntry) => isFileEntry(entry) || etagOnly(entry);

export async function runPush(options: PushOptions): Promise<PushReport> {
  const { outbox } = options;
  await releaseSentFiles(outbox.knex);
  const run = new PushRun(options, (await outbox.counts()).pending);
  options.onEvent?.({ type: 'start', total: run.report.total });
  const state = { batched: options.batched !== false, limit: MAX_PUSH_ENTRIES, retried: new Set<string>() };
  const queue: OutboxEntry[] = [];
  const files: OutboxEntry[] = [];
  let after = 0;
  let exhausted = false;
  const refill = async () => {
    while (!exhausted && queue.length < state.limit) {
      const page = await outbox.pending(after, PAGE);
      if (page.length === 0) exhausted = true;
      else {
        // Entries sent again are at the front already; the page holds only newer ones.
        queue.push(...page);
        after = page[page.length - 1]!.seq;
      }
    }
  };

  try {
    for (;;) {
      await refill();
      const entry = queue[0];
      if (!entry) break;
      if (entry.kind === 'observation') {
        let j = 1;
        while (j < queue.length && j < OBSERVATION_BATCH && queue[j]!.kind === 'observation' && queue[j]!.batchKey === entry.batchKey) j++;
        await pushObservations(run, queue.splice(0, j));
      } else if (staged(entry) && state.batched) {
        files.push(queue.shift()!);
      } else if (!state.batched || oneByOne(entry)) {
        await pushOne(run, queue.shift()!);
      } else {
        const batch = await takeBatch(run, queue, state.limit);
        if (batch.entries.length > 0) queue.unshift(...(await sendBatch(run, batch, state)));
      }
    }
    if (files.length > 0) await pushFiles(run, files, state);
  } catch (error) {
    const stop = asStop(error);
    run.report.stopped = stop.message;
    run.report.stoppedHint = stop.hint;
    run.report.interrupted = stop.interrupted;
  }
  run.report.remaining = (await outbox.counts()).pending;
  return run.report;
}

function asStop(error: unknown): Stop {
  if (error instanceof Stop) return error;
  if (error instanceof ClientFailure) return new Stop(error.message, error.hint ?? null);
  if (error instanceof TransportError) return new Stop(`server unreachable at ${new URL(error.url).origin}: ${error.message}`, error.hint ?? null);
  throw error;
}

/**
 * Takes the next batch off the front of `queue`: consecutive entries up to an observation or a
 * file entry, within the limits. Entries waiting for another user's entry are left out (they
 * stay pending); those whose dependency was refused are rejected here, unsent.
 */
async function takeBatch(run: PushRun, queue: OutboxEntry[], limit: number): Promise<Batch> {
  const batch: Batch = { entries: [], wires: [] };
  const keys = new Set<string>();
  let bytes = 0;
  while (queue.length > 0) {
    const entry = queue[0]!;
    if (entry.kind === 'observation' || oneByOne(entry)) break;
    const dependency = await run.dependency(entry, keys);
    const base = dependency === 'send' ? await baseOf(entry, keys, (id) => run.outbox.get(id)) : null;
    if (dependency === 'wait' || (base && 'wait' in base)) {
      queue.shift();
      continue;
    }
    if (dependency !== 'send' || (base && 'unknown' in base)) {
      queue.shift();
      await run.settle([{ entry, outcome: { id: entry.id, status: 'rejected', reason: dependency !== 'send' ? dependency : (base as { unknown: string }).unknown } }]);
      continue;
    }
    const wire = wireEntry(entry, base && 'base' in base ? base.base : undefined, undefined, keys);
    const size = wireBytes(wire);
    if (!fits(batch.entries.length, bytes, size, limit)) break;
    queue.shift();
    batch.entries.push(entry);
    batch.wires.push(wire);
    keys.add(entry.id);
    bytes += size;
  }
  return batch;
}

/**
 * Sends one batch and stores its answer; returns the entries to send again in this push (in
 * order): deferred ones, those whose base entry was refused (once), or the whole batch after a
 * 429/413 halved the limit or a 404 switched to one request per entry.
 */
async function sendBatch(run: PushRun, batch: Batch, state: { batched: boolean; limit: number; retried: Set<string> }): Promise<OutboxEntry[]> {
  const request = {
    method: 'POST' as const,
    url: `${run.options.server}${PUSH_PATH}`,
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ entries: batch.wires }),
    // Every entry is keyed: a repeat is answered from the server's store.
    repeatable: true,
  };
  const response = await run.send(request, new Set([404, 413, 429]), false);
  crashPoint('push.after-send');
  if (response.status === 404) {
    state.batched = false;
    return batch.entries;
  }
  run.report.requests++;
  if (response.status === 429 || response.status === 413) {
    const wait = header(response, 'retry-after');
    if (response.status === 429 && wait !== undefined) throw new Stop(`server busy; retry in ${wait.trim()} s`, 'run `fieldops push` again then');
    if (batch.entries.length > 1) {
      state.limit = Math.max(1, Math.floor(batch.entries.length / 2));
      return batch.entries;
    }
    if (response.status === 429) throw new Stop(`the server answered HTTP 429: ${describeErrorBody(response) ?? 'too many entries'}`);
    await run.settle([{ entry: batch.entries[0]!, outcome: { id: batch.entries[0]!.id, status: 'rejected', reason: `HTTP 413: ${describeErrorBody(response) ?? 'too large for the server'}` } }]);
    return [];
  }
  if (response.status !== 200) throw new Stop(`the server answered HTTP ${response.status} to the batched push${describeErrorBody(response) ? `: ${describeErrorBody(response)}` : ''}`);
  let answer: PushResponse;
  try {
    answer = JSON.parse(bodyText(response)) as PushResponse;
    if (!Array.isArray(answer.outcomes)) throw new Error('no outcomes');
  } catch {
    throw new Stop('the server answered the batched push in an unexpected shape', 'check that the server URL points at a fieldops server of this version');
  }
  // The statuses of what the batch's entries depend on outside it (for failed_dependency).
  const inBatch = new Set(batch.entries.map((e) => e.id));
  const outside = [...new Set(batch.entries.flatMap((e) => [e.dependsOn, e.baseEntry]).filter((id): id is string => !!id && !inBatch.has(id)))];
  const statuses = new Map<string, OutboxStatus>([...(await run.outbox.getMany(outside))].map(([id, entry]) => [id, entry.status]));
  const decisions = decide(batch.entries, answer.outcomes, (id) => (run.failed.has(id) ? 'rejected' : statuses.get(id)));
  crashPoint('push.before-settle');
  await run.settle(decisions.filter((d) => d.settled).map((d) => ({ entry: d.entry, outcome: d.settled! })));
  for (const d of decisions) {
    if (d.settled?.status === 'sent' && isFileEntry(d.entry)) await releaseStagedFile(run.outbox.knex, d.entry, d.outcome?.sha256 ?? null);
  }
  for (const d of decisions.filter((x) => x.readBack)) await settleRepeatedCreate(run, d.entry);
  // Deferred entries go again as often as the server defers them (while it makes progress);
  // one whose base entry was refused goes again once, on that entry's own base.
  const again = decisions.filter((d) => d.again && !d.settled && (d.outcome?.status === 'deferred' || !d.outcome || !state.retried.has(d.entry.id))).map((d) => d.entry);
  for (const d of decisions) if (d.again && d.outcome && d.outcome.status !== 'deferred') state.retried.add(d.entry.id);
  if (again.length === batch.entries.length && !decisions.some((d) => d.settled)) {
    throw new Stop(`the server deferred all ${again.length} entries of a batch`, 'run `fieldops push` again later');
  }
  return again;
}

/** A create the server already holds under its id (409, its key forgotten): read back and compared. */
async function settleRepeatedCreate(run: PushRun, entry: OutboxEntry): Promise<void> {
  const theirs = await readBack(run, entry);
  if (theirs && sameAsRecorded(entry, theirs.body)) {
    run.report.alreadyThere++;
    // Its revision too: a following edit is based on it (this key is unknown to the server).
    return run.settle([{ entry, outcome: { id: entry.id, status: 'sent', etag: theirs.etag, revision: revisionIn(theirs.body) } }]);
  }
  return run.settle([{ entry, outcome: { id: entry.id, status: 'conflict', reason: `the server already has ${entry.target} with other content (409)`, theirs: theirs ? { etag: theirs.etag, record: theirs.body } : null } }]);
}

/**
 * Staged files: each is uploaded (resumable; a refused one is rejected), then the attaches go in
 * batches, each `after` its record's create when that was made offline.
 */
async function pushFiles(run: PushRun, files: OutboxEntry[], state: { batched: boolean; limit: number; retried: Set<string> }): Promise<void> {
  const interrupt = run.options.interrupt;
  const deps = { transport: run.options.transport, server: run.options.server, knex: run.outbox.knex, stop: interrupt?.stop, signal: interrupt?.signal };
  let batch: Batch = { entries: [], wires: [] };
  let bytes = 0;
  const flush = async () => {
    let queue = batch.entries;
    const wires = new Map(batch.entries.map((e, i) => [e.id, batch.wires[i]!]));
    batch = { entries: [], wires: [] };
    bytes = 0;
    while (queue.length > 0) {
      const part = queue.slice(0, state.limit);
      const again = await sendBatch(run, { entries: part, wires: part.map((e) => wires.get(e.id)!) }, state);
      if (!state.batched) {
        for (const entry of [...again, ...queue.slice(part.length)]) await pushOne(run, entry);
        return;
      }
      queue = [...again, ...queue.slice(part.length)];
    }
  };
  for (const entry of files) {
    const dependency = await run.dependency(entry);
    if (dependency === 'wait') continue;
    if (dependency !== 'send') {
      await run.settle([{ entry, outcome: { id: entry.id, status: 'rejected', reason: dependency } }]);
      continue;
    }
    let upload: string;
    try {
      if (interrupt?.stop.aborted || interrupt?.signal.aborted) throw new Stop('interrupted', null, true);
      upload = (await uploadFile(entry, deps)).upload;
    } catch (error) {
      if (!(error instanceof UploadRefused)) throw error instanceof TransportError && error.code === 'ABORTED' ? new Stop('interrupted', null, true) : error;
      await run.settle([{ entry, outcome: { id: entry.id, status: 'rejected', reason: `${error.message} (${error.hint})` } }]);
      continue;
    }
    const body = entry.body as { id: string; comment?: string };
    // Its create was checked here (sent): no `after`.
    const wire = wireEntry(entry, undefined, { id: body.id, upload, comment: body.comment ?? '' }, new Set());
    const size = wireBytes(wire);
    if (!fits(batch.entries.length, bytes, size, state.limit)) await flush();
    batch.entries.push(entry);
    batch.wires.push(wire);
    bytes += size;
  }
  if (batch.entries.length > 0) await flush();
}

async function pushObservations(run: PushRun, batch: OutboxEntry[]): Promise<void> {
  const response = await run.send(observationBatch(run.options.server, batch));
  if (response.status < 300) return run.settle(batch.map((entry) => ({ entry, outcome: { id: entry.id, status: 'sent' } })));
  if (batch.length === 1) return run.settle([{ entry: batch[0]!, outcome: { id: batch[0]!.id, status: 'rejected', reason: `HTTP ${response.status}: ${describeErrorBody(response) ?? 'rejected'}` } }]);
  // The API stores nothing of a batch with an invalid item: send them one by one to keep the good ones.
  for (const entry of batch) await pushObservations(run, [entry]);
}

/**
 * Staged copies of file entries the server has (sent) that are still beside the mirror: a push
 * killed between storing an answer and removing the copy, a file sent one by one, or an answer
 * that named no sha256. `sent` means the server attached the upload, whose bytes it checked
 * against the entry's sha256 (a mismatch is a 460, never an attach).
 */
async function releaseSentFiles(knex: Knex): Promise<void> {
  const rows: Array<{ id: string; kind: string; body: string }> = await knex('outbox')
    .whereIn('kind', ['event.file', 'patrol.file'])
    .where({ status: 'sent' })
    .where((q: Knex.QueryBuilder) => q.whereNull('upload_state').orWhereNot({ upload_state: 'attached' }))
    .select('id', 'kind', 'body');
  for (const row of rows) {
    const body = JSON.parse(row.body) as { sha256?: unknown };
    await releaseStagedFile(knex, { id: row.id, kind: row.kind as OutboxEntry['kind'], body }, typeof body.sha256 === 'string' ? body.sha256 : null);
  }
}
