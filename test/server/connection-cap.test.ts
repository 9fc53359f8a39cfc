import net from 'node:net';
import t from 'tap';
import { dialect, startTestServer } from '../helpers/server.js';

/**
 * Issue 13, suspicion (b), confirmed: nothing capped the connections one address may hold
 * (on the old code the fourth connection below stays open and is served). Connections beyond
 * FIELDOPS_MAX_CONNECTIONS_PER_ADDRESS are closed as soon as they are accepted.
 */
const open = (port: number) =>
  new Promise<net.Socket>((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => resolve(socket));
    socket.once('error', reject);
  });

/** Sends one request; resolves to the status line, or null when the server closes instead. */
const ask = (socket: net.Socket) =>
  new Promise<string | null>((resolve) => {
    let text = '';
    const timer = setTimeout(() => resolve(null), 3000);
    socket.on('data', (chunk) => {
      text += chunk.toString();
      if (text.includes('\r\n')) {
        clearTimeout(timer);
        resolve(text.slice(0, text.indexOf('\r\n')));
      }
    });
    socket.on('error', () => undefined);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(text ? text.slice(0, text.indexOf('\r\n')) : null);
    });
    socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
  });

t.test(`connections beyond the per-address cap are closed (${dialect})`, async (t) => {
  const s = await startTestServer(t, { env: { FIELDOPS_MAX_CONNECTIONS_PER_ADDRESS: '3' } });
  if (!s) return;
  const { port } = s.server;
  const held = [await open(port), await open(port), await open(port)];
  t.teardown(() => held.forEach((socket) => socket.destroy()));
  const extra = await open(port).catch(() => null);
  t.equal(extra ? await ask(extra) : null, null, 'the fourth connection is closed without an answer');
  for (const socket of held) t.equal(await ask(socket), 'HTTP/1.1 200 OK', 'the three within the cap are served');

  const closed = new Promise((resolve) => held[0]!.once('close', resolve));
  held[0]!.destroy();
  await closed;
  // The server sees the close a moment later; then the slot is free again.
  let status: string | null = null;
  for (let attempt = 0; attempt < 20 && status === null; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    const socket = await open(port).catch(() => null);
    if (socket) {
      held.push(socket);
      status = await ask(socket);
    }
  }
  t.equal(status, 'HTTP/1.1 200 OK', 'a closed connection frees its slot');
});
