/** The feed client (sync/feed/client.ts): shape checks, compressed bodies, and what each status means. */
import { gzipSync, brotliCompressSync } from 'node:zlib';
import t from 'tap';
import { FeedClient, checkFeedPage } from '../../../sync/feed/client.js';
import type { TransportResponse } from '../../../sync/http.js';

const page = { changes: [{ kind: 'event', id: 'e1', op: 'put', version: 3, etag: '"x"', scopes: ['ev:all'], record: { id: 'e1' } }], cursor: 'c1', has_more: false, settling: false, checkpoint: { cursor: 'c1', scopes: [{ key: 'ev:all', count: 1, checksum: 7 }] }, granted: ['ev:all'], denied: [] };

function client(answer: (attempt: number) => TransportResponse | Error) {
  let attempt = 0;
  return new FeedClient({ server: 'http://s', attempts: 3, wait: async () => {}, transport: async () => {
    const value = answer(++attempt);
    if (value instanceof Error) throw value;
    return value;
  } });
}
const body = (status: number, value: unknown, headers: Record<string, string> = {}, code: (b: Buffer) => Buffer = (b) => b): TransportResponse => ({ status, headers, body: new Uint8Array(code(Buffer.from(JSON.stringify(value)))) });

t.test('pages are shape-checked before anything is written', async (t) => {
  t.match(checkFeedPage(page), { cursor: 'c1', checkpoint: { scopes: [{ count: 1 }] } });
  for (const [bad, why] of [
    [{ ...page, cursor: '' }, /no cursor/],
    [{ ...page, has_more: 'no' }, /has_more/],
    [{ ...page, changes: [{ ...page.changes[0], kind: 'planet' }] }, /unknown kind/],
    [{ ...page, changes: [{ ...page.changes[0], version: -1 }] }, /no version/],
    [{ ...page, changes: [{ ...page.changes[0], record: null }] }, /carries no record/],
    [{ ...page, changes: [{ ...page.changes[0], op: 'upsert' }] }, /unknown op/],
    [{ ...page, checkpoint: { scopes: [{ key: 'ev:all' }] } }, /checkpoint without counts/],
  ] as const) t.throws(() => checkFeedPage(bad), { message: why, hint: /fieldops server/ });
});

t.test('gzip and br bodies are inflated; a broken one is a clear failure', async (t) => {
  t.equal((await client(() => body(200, page, { 'content-encoding': 'gzip' }, (b) => gzipSync(b))).changes({ cursor: null, scopes: ['ev:all'] })).kind, 'page');
  t.equal((await client(() => body(200, page, { 'content-encoding': 'br' }, (b) => brotliCompressSync(b))).changes({ cursor: null, scopes: ['ev:all'] })).kind, 'page');
  await t.rejects(client(() => body(200, page, { 'content-encoding': 'gzip' })).changes({ cursor: null, scopes: [] }), /could not be decoded/);
});

t.test('statuses: 404 no feed, 503 preparing, 410 reasons, 5xx retried, 400 explained', async (t) => {
  t.same(await client(() => body(404, {})).changes({ cursor: null, scopes: [] }), { kind: 'no_feed', status: 404 });
  t.same(await client(() => body(503, { sync: [{ code: 'sync_preparing' }] }, { 'retry-after': '3' })).changes({ cursor: null, scopes: [] }), { kind: 'preparing', retryAfterMs: 3000 });
  t.match(await client(() => body(410, { status: { detail: 'old' }, sync: [{ code: 'sync_cursor_expired' }] })).changes({ cursor: 'x', scopes: [] }), { kind: 'gone', reason: 'expired' });
  t.match(await client(() => body(410, { sync: [{ code: 'sync_scopes_changed' }] })).changes({ cursor: 'x', scopes: [] }), { kind: 'gone', reason: 'scopes_changed' });
  t.equal((await client((n) => (n < 3 ? body(502, {}) : body(200, page))).changes({ cursor: null, scopes: [] })).kind, 'page', '5xx retried');
  await t.rejects(client(() => body(500, {})).changes({ cursor: null, scopes: [] }), /failed with HTTP 500/);
  await t.rejects(client(() => body(503, { status: { detail: 'down' } })).changes({ cursor: null, scopes: [] }), /failed with HTTP 503/, 'a 503 that is not the feed preparing is a failure');
  await t.rejects(client(() => body(400, { status: { detail: 'bad key' } })).changes({ cursor: null, scopes: ['x'] }), { message: /refused the request.*bad key/, hint: /--scope/ });
});
