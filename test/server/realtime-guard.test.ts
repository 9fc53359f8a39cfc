import http from 'node:http';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { Server } from 'socket.io';
import { type EngineConn, SessionGuard, WRITE_BUFFER_BYTES } from '../../server/http/realtime/guard.js';
import type { DropReason } from '../../server/http/realtime/metrics.js';
import { createLogger } from '../../server/logger.js';
import { PollingSession } from '../helpers/realtime-server.js';

/**
 * The SessionGuard (server/http/realtime/guard.ts) on a real engine.io server in this process,
 * for what the server process's metrics cannot show: which packet a bound falls on.
 */

type Conn = EngineConn & { send(data: string): void };

async function guarded(t: Test) {
  const dropped: DropReason[] = [];
  const guard = new SessionGuard({
    limits: { authorizeSeconds: 300, sessionsPerAddress: 0, sessions: 100 },
    stallMs: 300_000,
    handshake: () => ({ address: '127.0.0.1', origin: 'http://127.0.0.1' }),
    refused: () => {},
    dropped: (reason) => dropped.push(reason),
    logger: createLogger('silent'),
  });
  const server = http.createServer();
  const io = new Server(server, { path: '/socket.io', serveClient: false, allowRequest: guard.allowRequest });
  const opened: Conn[] = [];
  io.engine.on('connection', (conn: Conn) => {
    guard.admit(conn);
    opened.push(conn);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(async () => {
    guard.close();
    io.engine.close();
    await new Promise((resolve) => server.close(resolve));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  /** A session that never reads: everything sent to it waits in its buffer. */
  const idle = async () => {
    await PollingSession.open(url);
    const conn = opened.at(-1);
    if (!conn) throw new Error('no session');
    return conn;
  };
  return { guard, dropped, idle };
}

t.test('the write buffer bound counts the bytes a string is sent as (UTF-8), not its UTF-16 length', async (t) => {
  const { guard, dropped, idle } = await guarded(t);
  // 3 Mi characters each: 3 MiB in ASCII, 9 MiB as UTF-8 for '€' (3 bytes, 1 UTF-16 unit each).
  const characters = 3 * 1024 * 1024;
  t.ok(characters < WRITE_BUFFER_BYTES && 3 * characters > WRITE_BUFFER_BYTES, 'the bound lies between the two');

  const ascii = await idle();
  ascii.send('first');
  ascii.send('x'.repeat(characters));
  t.same(dropped, [], '3 MiB waiting past the first packet: kept');
  t.equal(guard.queuedPackets, 2);

  const euros = await idle();
  euros.send('first');
  euros.send('€'.repeat(characters));
  t.same(dropped, ['write_buffer'], '9 MiB waiting past the first packet (3 Mi UTF-16 units): dropped');
  t.equal(guard.size, 1, 'the other session stays');
});
