/**
 * Which unsafe requests the transport repeats after an ambiguous failure (sync/retry.ts): a
 * record write with an Idempotency-Key and a request marked `repeatable` (de-duplicated sensor
 * batches) are retried; any other POST/PUT/PATCH/DELETE is sent once. A real local server cuts
 * the connection after reading each request (the answer is lost, as after a commit).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { safeToRepeat } from '../../sync/http.js';
import { withRetries } from '../../sync/retry.js';
import { createUndiciTransport, TransportError } from '../../sync/transport.js';

t.test('a lost answer is retried only for requests safe to repeat', async (t) => {
  let hits = 0;
  const server = http.createServer((request) => {
    hits++;
    request.resume();
    request.on('end', () => request.socket.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))));
  const transport = createUndiciTransport();
  t.teardown(() => transport.close());
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/x`;
  const retrying = withRetries(transport, { attempts: 3, baseDelayMs: 1, sleep: async () => {} });
  const attempts = async (request: Parameters<typeof retrying>[0]) => {
    hits = 0;
    await t.rejects(retrying(request), TransportError);
    return hits;
  };
  t.equal(await attempts({ method: 'PATCH', url, body: '{}', headers: { 'content-type': 'application/json' } }), 1, 'an unkeyed PATCH is sent once');
  t.equal(await attempts({ method: 'PATCH', url, body: '{}', headers: { 'Idempotency-Key': 'entry-1' } }), 3, 'a keyed PATCH is retried');
  t.equal(await attempts({ method: 'POST', url, body: '[]', repeatable: true }), 3, 'a de-duplicated batch is retried');
  t.equal(await attempts({ method: 'GET', url }), 3, 'a GET is retried');
  t.notOk(safeToRepeat({ method: 'DELETE', url, headers: { 'if-match': '"1"' } }));
  t.ok(safeToRepeat({ method: 'DELETE', url, headers: { 'idempotency-key': 'k' } }));
});
