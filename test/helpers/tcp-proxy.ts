import net from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Test } from 'tap';

/**
 * A TCP proxy in front of a database, to make the database unreachable without touching it:
 * `stop()` closes the listening socket and cuts every connection through it (clients see
 * resets, new connections are refused), `start()` listens again on the same port.
 */
export interface TcpProxy {
  port: number;
  stop(): Promise<void>;
  start(): Promise<void>;
}

export async function startTcpProxy(t: Test, target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => undefined);
    }
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  const listen = (port: number) => new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  await listen(0);
  const port = (server.address() as AddressInfo).port;
  const stop = async () => {
    if (!server.listening) return;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const socket of sockets) socket.destroy();
    await closed;
  };
  t.teardown(stop);
  return { port, stop, start: () => listen(port) };
}
