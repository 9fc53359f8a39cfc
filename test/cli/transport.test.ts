/**
 * The transport and its decorators against a real local HTTP server: bodies always read,
 * network failures as TransportError, bounded retries with backoff (and never a repeated
 * OAuth refresh), Retry-After, byte counting.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { countingTransport } from '../../sync/counting.js';
import { parseRetryAfter, withRetries } from '../../sync/retry.js';
import { createUndiciTransport, TransportError } from '../../sync/transport.js';

async function server(t: Test, handler: http.RequestListener) {
  const s = http.createServer(handler);
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => (s.closeAllConnections(), s.close(() => resolve()))));
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
}

t.test('responses come back whole, with lower-case headers', async (t) => {
  const url = await server(t, (_req, res) => {
    res.writeHead(200, { ETag: '"x"', 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ big: 'y'.repeat(100_000) }));
  });
  const transport = createUndiciTransport();
  t.teardown(() => transport.close());
  const counted = countingTransport(transport);
  const response = await counted.transport({ method: 'GET', url });
  t.equal(response.status, 200);
  t.equal(response.headers.etag, '"x"');
  t.equal(response.body.byteLength, 100_010);
  t.same(counted.log.exchanges, [{ method: 'GET', url, status: 200, bytes: 100_010 }]);
});

t.test('a refused connection is a TransportError that says so', async (t) => {
  const url = await server(t, () => {});
  const closed = url.replace(/:\d+$/, ':1');
  const transport = createUndiciTransport();
  t.teardown(() => transport.close());
  const error = await transport({ method: 'GET', url: closed }).catch((e) => e);
  t.type(error, TransportError);
  t.equal(error.code, 'ECONNREFUSED');
  t.equal(error.notSent, true);
  t.match(error.message, /^connection refused/);
});

t.test('timeouts are TransportErrors too', async (t) => {
  const url = await server(t, () => {}); // never answers
  const transport = createUndiciTransport({ timeoutMs: 200 });
  t.teardown(() => transport.close());
  const error = await transport({ method: 'GET', url }).catch((e) => e);
  t.type(error, TransportError);
  t.match(error.message, /^timed out/);
});

t.test('retries: 5xx and network errors, bounded, with growing delays', async (t) => {
  let calls = 0;
  const url = await server(t, (_req, res) => {
    calls++;
    res.writeHead(calls < 3 ? 503 : 200);
    res.end(calls < 3 ? 'busy' : 'ok');
  });
  const transport = createUndiciTransport();
  t.teardown(() => transport.close());
  const delays: number[] = [];
  const retrying = withRetries(transport, { attempts: 4, baseDelayMs: 100, sleep: async (ms) => void delays.push(ms), random: () => 1 });
  const response = await retrying({ method: 'GET', url });
  t.equal(response.status, 200);
  t.equal(calls, 3);
  t.same(delays, [100, 200], 'exponential backoff');

  calls = -10;
  const bounded = withRetries(transport, { attempts: 3, baseDelayMs: 1, sleep: async () => {} });
  t.equal((await bounded({ method: 'GET', url })).status, 503, 'after the last try, the answer is returned');
  t.equal(calls, -7, 'exactly three tries');
});

t.test('requests that change state are not repeated unless safe', async (t) => {
  let calls = 0;
  const url = await server(t, (req, res) => {
    calls++;
    req.resume();
    res.writeHead(503, { 'Retry-After': '2' });
    res.end();
  });
  const transport = createUndiciTransport();
  t.teardown(() => transport.close());
  const delays: number[] = [];
  const policy = { attempts: 3, baseDelayMs: 10, sleep: async (ms: number) => void delays.push(ms) };
  t.equal((await withRetries(transport, policy)({ method: 'POST', url, body: 'grant_type=refresh_token' })).status, 503);
  t.equal(calls, 1, 'a POST (an OAuth refresh) is sent once');
  calls = 0;
  t.equal((await withRetries(transport, { ...policy, retryUnsafe: true })({ method: 'POST', url, body: '{}' })).status, 503);
  t.equal(calls, 3, 'unless the caller says repeating is harmless (sensor intake de-duplicates)');
  t.same(delays, [2000, 2000], 'Retry-After is honoured');
});

t.test('Retry-After in seconds or as a date', async (t) => {
  t.equal(parseRetryAfter('3'), 3000);
  t.equal(parseRetryAfter(new Date(10_000).toUTCString(), 4_000), 6_000);
  t.equal(parseRetryAfter('soon'), undefined);
  t.equal(parseRetryAfter(undefined), undefined);
});
