import type { Server } from 'node:net';

/**
 * Counts the connections each peer address holds open, up to `max` each. `take` reserves a slot
 * and gives back its release (idempotent: a slot is never given back twice), or null when the
 * address holds `max` already. `max = 0` counts nothing and refuses nothing.
 */
export class AddressSlots {
  private readonly held = new Map<string, number>();

  constructor(private readonly max: number) {}

  take(address: string): (() => void) | null {
    if (this.max <= 0) return () => {};
    const count = this.held.get(address) ?? 0;
    if (count >= this.max) return null;
    this.held.set(address, count + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.held.get(address) ?? 1) - 1;
      if (left <= 0) this.held.delete(address);
      else this.held.set(address, left);
    };
  }

  /** Connections the address holds now. */
  open(address: string): number {
    return this.held.get(address) ?? 0;
  }
}

/**
 * Caps the connections one peer address may hold open at once: a connection beyond the cap is
 * destroyed as soon as it is accepted, before a byte is read. This bounds what a single host can
 * pin (sockets, parsers, the request timeout's worth of slow bodies) whatever its request rate.
 * With `--workers`, the primary holds the same cap over a connection's whole life, wherever it
 * is served (server/cluster/sticky.ts).
 *
 * The peer is the socket's address: behind a reverse proxy every connection comes from the
 * proxy, which is why the default is off when FIELDOPS_TRUST_PROXY is set (the proxy caps its
 * clients). `max = 0` turns the cap off.
 */
export function capConnectionsPerAddress(server: Server, max: number): AddressSlots {
  const slots = new AddressSlots(max);
  if (max > 0) {
    server.on('connection', (socket) => {
      const release = slots.take(socket.remoteAddress ?? '');
      if (!release) return void socket.destroy();
      socket.once('close', release);
    });
  }
  return slots;
}
