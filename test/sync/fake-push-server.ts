/**
 * A small real HTTP server that answers the batched push per protocol/push.ts, for the CLI push
 * engine's tests (sync/push/): events with a revision and per-field history, idempotency keys
 * (a repeat is `replayed` with the stored outcome), `after`, `{entry}` and `{revision}` bases, a
 * same-field change since the base held as an open conflict, `conflict.resolve`, the limits
 * (429 without Retry-After past `maxEntries`, 429 with Retry-After while `busy`), and an older
 * server's one-by-one routes when `batched` is false (404 on the batched push).
 */
import http from 'node:http';
import type { Test } from 'tap';
import type { PushEntry, PushOutcome, PushRequest } from '../../protocol/push.js';
import { listenForTest } from '../helpers/test-listener.js';

interface ServerEvent {
  revision: number;
  fields: Record<string, unknown>;
  /** The revision at which each field last changed. */
  changedAt: Record<string, number>;
}

export interface Exchange {
  method: string;
  path: string;
  status: number;
  bytes: number;
  keys: string[];
  entries: PushEntry[];
  headers: http.IncomingHttpHeaders;
}

export interface FakePushServer {
  url: string;
  events: Map<string, ServerEvent>;
  keys: Map<string, PushOutcome>;
  conflicts: Map<string, { field: string; status: 'open' | 'settled' }>;
  exchanges: Exchange[];
  /** Writes applied (a replay applies nothing). */
  writes: number;
  batched: boolean;
  maxEntries: number;
  /** Requests still to answer 429 with this Retry-After (seconds). */
  busy: { count: number; retryAfter: number };
  /** Called after the batch was applied, before it is answered (a test cuts the link here). */
  afterApply: ((exchange: Exchange) => Promise<void>) | null;
  /** Changes a field on the server (headquarters), moving the revision. */
  change(id: string, field: string, value: unknown): void;
}

export async function startFakePushServer(t: Test): Promise<FakePushServer> {
  let conflictSeq = 0;
  const fake: FakePushServer = {
    url: '', events: new Map(), keys: new Map(), conflicts: new Map(), exchanges: [], writes: 0, batched: true, maxEntries: 500,
    busy: { count: 0, retryAfter: 0 }, afterApply: null,
    change(id, field, value) {
      const event = fake.events.get(id)!;
      event.revision++;
      event.fields[field] = value;
      event.changedAt[field] = event.revision;
    },
  };

  const apply = (entry: PushEntry, outcomes: PushOutcome[]): PushOutcome => {
    const held = fake.keys.get(entry.key);
    if (held) return { ...held, status: 'replayed' };
    const failed = (code: string): PushOutcome => ({ key: entry.key, status: 'failed_dependency', http_status: 424, error: { code, message: code } });
    for (const key of entry.after ?? []) {
      const done = fake.keys.get(key);
      if (!done || done.status === 'rejected') return failed('dependency_failed');
    }
    let outcome: PushOutcome;
    const body = entry.body as Record<string, unknown>;
    if (entry.op === 'event.create') {
      const { id, ...fields } = body as { id: string };
      fake.events.set(id, { revision: 1, fields, changedAt: {} });
      outcome = { key: entry.key, status: 'applied', http_status: 201, kind: 'event', id, revision: 1 };
    } else if (entry.op === 'event.update') {
      const event = fake.events.get(entry.id!);
      if (!event) return { key: entry.key, status: 'rejected', http_status: 404, error: { code: 'not_found', message: 'no such event' } };
      if (body.reject) return { key: entry.key, status: 'rejected', http_status: 400, error: { code: 'invalid', message: 'refused by the test', field: 'reject' } };
      let base: number;
      if (entry.base && 'entry' in entry.base) {
        const from = fake.keys.get(entry.base.entry);
        if (!from || typeof from.revision !== 'number') return failed('base_entry_unknown');
        base = from.revision;
      } else if (entry.base) base = entry.base.revision;
      else return { key: entry.key, status: 'rejected', http_status: 400, error: { code: 'no_base', message: 'the test server takes no blind update' } };
      const conflicts: NonNullable<PushOutcome['conflicts']> = [];
      const merged = Object.keys(event.changedAt).filter((f) => event.changedAt[f]! > base && !(f in body));
      const before = event.revision;
      for (const [field, mine] of Object.entries(body)) {
        if ((event.changedAt[field] ?? 0) > base && event.fields[field] !== mine) {
          const id = `conflict-${++conflictSeq}`;
          fake.conflicts.set(id, { field, status: 'open' });
          conflicts.push({ id, field, base: null, mine, theirs: event.fields[field], status: 'open', policy: 'hold' });
          continue;
        }
        event.fields[field] = mine;
        event.changedAt[field] = before + 1;
      }
      event.revision = before + 1;
      const status = conflicts.length ? 'conflict' : merged.length ? 'merged' : 'applied';
      outcome = { key: entry.key, status, http_status: 200, kind: 'event', id: entry.id, revision: event.revision, merged_fields: merged, conflicts };
    } else if (entry.op === 'conflict.resolve') {
      const conflict = fake.conflicts.get(entry.id!);
      if (!conflict) return { key: entry.key, status: 'rejected', http_status: 404, error: { code: 'not_found', message: 'no such conflict' } };
      conflict.status = 'settled';
      outcome = { key: entry.key, status: 'applied', http_status: 200, kind: 'conflict', id: entry.id };
    } else {
      return { key: entry.key, status: 'rejected', http_status: 400, error: { code: 'unsupported', message: `the test server takes no ${entry.op}` } };
    }
    fake.writes++;
    fake.keys.set(entry.key, outcome);
    void outcomes;
    return outcome;
  };

  const server = http.createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    const path = request.url ?? '';
    const exchange: Exchange = { method: request.method ?? '', path, status: 0, bytes: raw.length, keys: [], entries: [], headers: request.headers };
    fake.exchanges.push(exchange);
    const answer = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      exchange.status = status;
      const text = body === undefined ? '' : JSON.stringify(body);
      if (response.destroyed) return;
      response.writeHead(status, { 'content-type': 'application/json', ...headers });
      response.end(text);
    };
    if (path === '/api/fieldops/v1/sync/push' && request.method === 'POST') {
      if (!fake.batched) return answer(404, { status: { code: 404, detail: 'no such route' } });
      const { entries } = JSON.parse(raw.toString()) as PushRequest;
      exchange.entries = entries;
      exchange.keys = entries.map((e) => e.key);
      if (entries.length > fake.maxEntries) return answer(429, { status: { code: 429, detail: `at most ${fake.maxEntries} entries` } });
      if (fake.busy.count > 0) {
        fake.busy.count--;
        return answer(429, { status: { code: 429, detail: 'busy' } }, { 'retry-after': String(fake.busy.retryAfter) });
      }
      const outcomes: PushOutcome[] = [];
      for (const entry of entries) outcomes.push(apply(entry, outcomes));
      await fake.afterApply?.(exchange);
      return answer(200, { outcomes });
    }
    // An older server's one-by-one routes.
    const one = /^\/api\/v1\.0\/activity\/events(?:\/([^/]+))?$/.exec(path);
    if (one && request.method === 'POST') {
      const body = JSON.parse(raw.toString()) as { id: string };
      exchange.keys = [String(request.headers['idempotency-key'])];
      const outcome = apply({ key: exchange.keys[0]!, op: 'event.create', body }, []);
      return answer(outcome.status === 'rejected' ? outcome.http_status : 201, { id: body.id, revision: outcome.revision });
    }
    if (one?.[1] && request.method === 'PATCH') {
      exchange.keys = [String(request.headers['idempotency-key'])];
      const revision = Number(request.headers['fieldops-base-revision']);
      const outcome = apply({ key: exchange.keys[0]!, op: 'event.update', id: one[1], base: Number.isFinite(revision) ? { revision } : undefined, body: JSON.parse(raw.toString()) }, []);
      if (outcome.status === 'rejected') return answer(outcome.http_status, { status: { code: outcome.http_status, detail: outcome.error?.message } });
      return answer(200, { id: one[1], revision: outcome.revision, ...fake.events.get(one[1])!.fields });
    }
    return answer(404, { status: { code: 404, detail: 'no such route' } });
  });
  fake.url = await listenForTest(t, server, new http.Agent());
  return fake;
}
