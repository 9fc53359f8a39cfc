/**
 * Interrupting a request that is being retried (sync/retry.ts), against a real local HTTP
 * server and the real transport: a backoff is cut short by either Ctrl-C (`stop`, then
 * `signal`), and once `stop` has fired the attempt in flight may finish but no retry starts.
 * The backoffs are an hour long: a test that passes never waited for one.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { withRetries } from '../../sync/retry.js';
import { createUndiciTransport, TransportError } from '../../sync/transport.js';

const HOUR = 3_600_000;

/** A server that answers each request with `answer(n)` (n counts from 1), possibly later. */
async function server(t: Test, answer: (n: number, response: http.ServerResponse) => void) {
  let hits = 0;
  const s = http.createServer((request, response) => {
    request.resume();
    answer(++hits, response);
  });
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => (s.closeAllConnections(), s.close(() => resolve()))));
  const transport = createUndiciTransport();
  t.teardown(() => transport.close());
  return { url: `http://127.0.0.1:${(s.address() as AddressInfo).port}/x`, transport, hits: () => hits };
}

const unavailable = (_n: number, response: http.ServerResponse) => {
  response.writeHead(503);
  response.end();
};

for (const which of ['stop', 'signal'] as const) {
  t.test(`a backoff under way ends as soon as the request's \`${which}\` fires`, async (t) => {
    const s = await server(t, unavailable);
    const controller = new AbortController();
    const retrying = withRetries(s.transport, { attempts: 3, baseDelayMs: HOUR, maxDelayMs: HOUR, onRetry: () => controller.abort() });
    const error = await retrying({ method: 'GET', url: s.url, [which]: controller.signal }).catch((e: unknown) => e);
    t.type(error, TransportError);
    t.match(error, { code: 'ABORTED', message: /^interrupted \(not retried after HTTP 503\)$/ });
    t.equal(s.hits(), 1, 'no retry was made');
  });
}

t.test('once `stop` fires, the attempt in flight finishes but no retry starts', async (t) => {
  let hold: (response: http.ServerResponse) => void = () => {};
  const held = new Promise<http.ServerResponse>((resolve) => (hold = resolve));
  const s = await server(t, (n, response) => (n === 1 ? hold(response) : unavailable(n, response)));
  const stop = new AbortController();
  const retrying = withRetries(s.transport, { attempts: 3, baseDelayMs: 1, sleep: async () => {} });
  const pending = retrying({ method: 'GET', url: s.url, stop: stop.signal }).catch((e: unknown) => e);
  const response = await held;
  stop.abort();
  unavailable(1, response);
  t.match(await pending, { code: 'ABORTED' }, 'its 503 is not retried');
  t.equal(s.hits(), 1);

  const ok = await server(t, (_n, response) => response.end('fine'));
  const stopped = new AbortController();
  stopped.abort();
  const answered = await withRetries(ok.transport, { attempts: 3, baseDelayMs: 1 })({ method: 'GET', url: ok.url, stop: stopped.signal });
  t.equal(answered.status, 200, 'an attempt that succeeds is the answer, stopping or not');
});

t.test('without an interruption, retries go on as before', async (t) => {
  const s = await server(t, (n, response) => (n < 3 ? unavailable(n, response) : response.end('ok')));
  const stop = new AbortController();
  const response = await withRetries(s.transport, { attempts: 3, baseDelayMs: 1 })({ method: 'GET', url: s.url, stop: stop.signal, signal: new AbortController().signal });
  t.equal(response.status, 200);
  t.equal(s.hits(), 3);
});
