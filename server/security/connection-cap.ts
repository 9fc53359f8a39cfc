import type { Server } from 'node:net';

/**
 * Caps the connections one peer address may hold open at once: a connection beyond the cap is
 * destroyed as soon as it is accepted, before a byte is read. This bounds what a single host can
 * pin (sockets, parsers, the request timeout's worth of slow bodies) whatever its request rate.
 *
 * The peer is the socket's address: behind a reverse proxy every connection comes from the
 * proxy, which is why the default is off when FIELDOPS_TRUST_PROXY is set (the proxy caps its
 * clients). `max = 0` turns the cap off.
 */
export function capConnectionsPerAddress(server: Server, max: number): { open(address: string): number } {
  const open = new Map<string, number>();
  if (max > 0) {
    server.on('connection', (socket) => {
      const address = socket.remoteAddress ?? '';
      const count = open.get(address) ?? 0;
      if (count >= max) {
        socket.destroy();
        return;
      }
      open.set(address, count + 1);
      socket.once('close', () => {
        const left = (open.get(address) ?? 1) - 1;
        if (left <= 0) open.delete(address);
        else open.set(address, left);
      });
    });
  }
  return { open: (address) => open.get(address) ?? 0 };
}
