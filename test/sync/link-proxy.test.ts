/**
 * The link proxy the offline-write benchmarks and tests run through (bench/lib/link-proxy.ts):
 * it adds its round trip, counts bytes each way, and cuts every connection on demand or at an
 * uplink byte count, forwarding nothing past it.
 */
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { startLinkProxy } from '../../bench/lib/link-proxy.js';

async function echoServer(t: Test): Promise<{ port: number; received: () => number }> {
  let received = 0;
  const server = net.createServer((socket) => {
    socket.on('data', (chunk) => {
      received += chunk.length;
      socket.write(chunk);
    });
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { port: (server.address() as AddressInfo).port, received: () => received };
}

function connect(port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => resolve(socket));
    socket.once('error', reject);
  });
}

function readBytes(socket: net.Socket, count: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let length = 0;
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      length += chunk.length;
      if (length >= count) {
        socket.off('data', onData);
        resolve(Buffer.concat(chunks));
      }
    };
    socket.on('data', onData);
    socket.once('close', () => reject(new Error(`closed after ${length} bytes`)));
  });
}

t.test('adds its round trip, keeps order and counts bytes both ways', async (t) => {
  const echo = await echoServer(t);
  const proxy = await startLinkProxy({ host: '127.0.0.1', port: echo.port }, { roundTripMs: 200 });
  t.teardown(() => proxy.close());
  const socket = await connect(proxy.port);
  t.teardown(() => socket.destroy());
  const started = Date.now();
  const sent = Buffer.from(Array.from({ length: 50 }, (_, i) => `part ${i};`).join(''));
  for (let i = 0; i < sent.length; i += 7) socket.write(sent.subarray(i, i + 7));
  const back = await readBytes(socket, sent.length);
  // Through the proxy twice (there and back): at least one full round trip elapsed.
  t.ok(Date.now() - started >= 195, 'the echo took at least the round trip');
  t.equal(back.toString(), sent.toString(), 'bytes arrive in order');
  t.equal(proxy.bytesUp, sent.length);
  t.equal(proxy.bytesDown, sent.length);
  t.equal(proxy.connections, 1);
});

t.test('cutAfterUp forwards exactly up to the threshold, then resets every connection', async (t) => {
  const echo = await echoServer(t);
  const proxy = await startLinkProxy({ host: '127.0.0.1', port: echo.port });
  t.teardown(() => proxy.close());
  const socket = await connect(proxy.port);
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.on('error', () => undefined);
  proxy.cutAfterUp(1000);
  socket.write(Buffer.alloc(600, 1));
  await readBytes(socket, 600);
  socket.write(Buffer.alloc(600, 2));
  await closed;
  t.equal(proxy.bytesUp, 1000, 'the uplink stopped at the threshold');
  t.equal(proxy.cuts, 1);
  t.equal(echo.received(), 1000, 'the target got the bytes before the cut and none after');
  // A new connection after the cut works (the link came back).
  const again = await connect(proxy.port);
  t.teardown(() => again.destroy());
  again.write('hello');
  t.equal((await readBytes(again, 5)).toString(), 'hello');
  t.equal(proxy.connections, 2);
});

t.test('cutNow resets open connections at once', async (t) => {
  const echo = await echoServer(t);
  const proxy = await startLinkProxy({ host: '127.0.0.1', port: echo.port });
  t.teardown(() => proxy.close());
  const sockets = await Promise.all([connect(proxy.port), connect(proxy.port)]);
  const closes = sockets.map((socket) => {
    socket.on('error', () => undefined);
    return new Promise<void>((resolve) => socket.once('close', () => resolve()));
  });
  // Both connections are established through the proxy before the cut.
  await new Promise((resolve) => setTimeout(resolve, 20));
  proxy.cutNow();
  await Promise.all(closes);
  t.equal(proxy.cuts, 1);
});
