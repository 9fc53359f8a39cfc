/**
 * A TCP proxy that behaves like a poor field link, for benchmarks and end-to-end tests (issue
 * 26): a fixed round-trip time (half added each way, order kept), bytes counted each way, and
 * cuts (every connection through it reset at once, new ones accepted) on demand or after a
 * number of uplink bytes. It knows nothing of HTTP, so what it counts is what a satellite modem
 * would bill. Imports no test framework: bench/ and test/ both use it.
 */
import net from 'node:net';
import type { AddressInfo } from 'node:net';

export interface LinkProxy {
  /** `http://127.0.0.1:<port>`: where clients connect. */
  origin: string;
  port: number;
  /** Bytes from clients to the target (uplink) and back (downlink), over all connections. */
  readonly bytesUp: number;
  readonly bytesDown: number;
  /** Connections accepted so far. */
  readonly connections: number;
  /** Cuts made so far (by `cutNow` or a `cutAfterUp` threshold). */
  readonly cuts: number;
  /** Round trip added from now on, in milliseconds (half each way). */
  setRoundTrip(ms: number): void;
  /** Resets every open connection now (both sides see the connection drop). */
  cutNow(): void;
  /**
   * Resets every open connection once the uplink total (`bytesUp`, counted since the proxy
   * started) reaches `bytes`; bytes past it are not forwarded. One threshold at a time; `null`
   * clears it.
   */
  cutAfterUp(bytes: number | null): void;
  close(): Promise<void>;
}

export async function startLinkProxy(target: { host: string; port: number }, options: { roundTripMs?: number } = {}): Promise<LinkProxy> {
  let oneWay = (options.roundTripMs ?? 0) / 2;
  let bytesUp = 0;
  let bytesDown = 0;
  let connections = 0;
  let cuts = 0;
  let cutAt: number | null = null;
  /** Between a threshold cut and its reset: no connection forwards anything more. */
  let severedAll = false;
  const sockets = new Set<net.Socket>();

  /** Forwards `chunk` after the one-way delay (timers of one delay fire in the order they were set). */
  const later = (to: net.Socket, chunk: Buffer) => {
    if (oneWay <= 0) {
      if (!to.destroyed) to.write(chunk);
      return;
    }
    setTimeout(() => {
      if (!to.destroyed) to.write(chunk);
    }, oneWay);
  };

  const cutNow = () => {
    cuts++;
    for (const socket of sockets) socket.resetAndDestroy();
    sockets.clear();
  };

  const server = net.createServer((client) => {
    connections++;
    const upstream = net.connect(target.port, target.host);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => undefined);
    }
    // Once this connection is cut nothing more of it is forwarded: a stream with a hole in it
    // is not what a dropped link delivers.
    let severed = false;
    client.on('data', (chunk: Buffer) => {
      if (severed || severedAll) return;
      if (cutAt !== null && bytesUp + chunk.length >= cutAt) {
        const allowed = Math.max(0, cutAt - bytesUp);
        bytesUp += allowed;
        cutAt = null;
        severed = true;
        severedAll = true;
        client.pause();
        // The partial chunk reaches the target (after the one-way delay, behind the chunks before
        // it) before the reset, as on a link that drops mid-send.
        if (allowed > 0) later(upstream, chunk.subarray(0, allowed));
        setTimeout(() => {
          severedAll = false;
          cutNow();
        }, oneWay + 1);
        return;
      }
      bytesUp += chunk.length;
      later(upstream, chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      bytesDown += chunk.length;
      later(client, chunk);
    });
    const endLater = (to: net.Socket) => () => setTimeout(() => to.end(), oneWay);
    client.on('end', endLater(upstream));
    upstream.on('end', endLater(client));
    client.on('close', () => setTimeout(() => upstream.destroy(), oneWay));
    upstream.on('close', () => setTimeout(() => client.destroy(), oneWay));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    get bytesUp() {
      return bytesUp;
    },
    get bytesDown() {
      return bytesDown;
    },
    get connections() {
      return connections;
    },
    get cuts() {
      return cuts;
    },
    setRoundTrip(ms) {
      oneWay = ms / 2;
    },
    cutNow,
    cutAfterUp(bytes) {
      cutAt = bytes;
    },
    close: () => new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    }),
  };
}
