/**
 * Sticky routing for `serve --workers N`: the primary accepts every connection itself, reads its
 * first bytes, and hands the socket (with those bytes) to a worker. A request of an engine.io
 * session (socket.io's long-polling, then the upgrade to a websocket) goes to the worker that
 * created the session, which it names in its `sid`; any other connection goes to the next worker
 * round-robin. A keep-alive connection stays with the worker it was handed to.
 *
 * Session ids carry their worker's slot (`w<slot>.`, set by the worker through engine.io's
 * `generateId`), so the primary keeps no table of sessions, and a replacement worker, which
 * takes its predecessor's slot, is sent the requests of the sessions that died with it (it
 * answers "Session ID unknown" and the client opens a new session).
 *
 * Plain HTTP only: behind a TLS-terminating proxy (docs/deploy.md), as the server always is.
 */
import net from 'node:net';
import type { Worker } from 'node:cluster';
import { AddressSlots } from '../security/connection-cap.js';
import { ADOPTED, CLOSED, CONNECTION, isMessage, type PrimaryMessage, type WorkerMessage } from './messages.js';

/** The prefix of the session ids a worker in `slot` creates. */
export const sessionIdPrefix = (slot: number): string => `w${slot}.`;

/** The most the primary reads of a connection before it routes it. */
const HEAD_LIMIT = 8192;

const REQUEST_LINE = /^[A-Z]+ \/socket\.io\/?\?(\S*) HTTP\/1\.[01]\r?$/;

/**
 * The worker slot an engine.io request names in its `sid`, or null: not an engine.io request,
 * no session yet (a handshake), or a request line not whole in the bytes read (8 KiB at most).
 */
export function slotOfRequest(head: Buffer): number | null {
  const text = head.subarray(0, HEAD_LIMIT).toString('latin1');
  const end = text.indexOf('\n');
  if (end < 0) return null;
  const query = REQUEST_LINE.exec(text.slice(0, end))?.[1];
  if (query === undefined) return null;
  const sid = new URLSearchParams(query).get('sid');
  const slot = sid ? /^w(\d{1,3})\./.exec(sid)?.[1] : undefined;
  return slot === undefined ? null : Number(slot);
}

/** What the balancer needs of a worker (a cluster `Worker`, or a forked process in tests). */
export interface StickyTarget {
  send: Worker['send'];
  on(event: string, listener: (...args: any[]) => void): unknown;
  once(event: string, listener: (...args: any[]) => void): unknown;
  off(event: string, listener: (...args: any[]) => void): unknown;
}

export interface StickyOptions {
  /** The worker for a connection: the one in `slot` if it serves, else another one; null when none serves. */
  pick(slot: number | null): StickyTarget | null;
  /** How long a worker may take to adopt a connection handed to it before the primary cuts it (default 5 s). */
  adoptTimeoutMs?: number;
  /** How long a connection may take to send its request line (default 10 s): then it is routed with what it sent, or cut if nothing. */
  firstChunkTimeoutMs?: number;
  /**
   * Connections one peer address may hold at once, counted from accept until the worker that
   * serves it reports it closed (FIELDOPS_MAX_CONNECTIONS_PER_ADDRESS); beyond it a connection
   * is destroyed as soon as it is accepted. 0 or absent: no cap.
   */
  maxConnectionsPerAddress?: number;
}

/** The primary's listening socket and its hand-over of connections to the workers. */
export class StickyBalancer {
  private readonly server: net.Server;
  /** Connections whose request line has not come yet. */
  private readonly waiting = new Set<net.Socket>();
  /**
   * Connections handed over and not yet adopted, by id, with their worker. The primary keeps its
   * copy of each until the worker says it holds it (ADOPTED): a worker that dies (or hangs)
   * before would otherwise leave the client waiting forever on a socket nobody reads.
   */
  private readonly handed = new Map<number, { socket: net.Socket; worker: StickyTarget; timer: NodeJS.Timeout; release: () => void }>();
  /** Connections a worker holds, by id, until it reports them closed (CLOSED) or goes away: their address slots. */
  private readonly adopted = new Map<number, { worker: StickyTarget; release: () => void }>();
  private sequence = 0;
  private readonly watched = new WeakSet<StickyTarget>();
  private readonly slots: AddressSlots;

  constructor(private readonly options: StickyOptions) {
    this.slots = new AddressSlots(options.maxConnectionsPerAddress ?? 0);
    this.server = net.createServer({ pauseOnConnect: true }, (socket) => this.accept(socket));
  }

  /** Binds; rejects with the server's error (EADDRINUSE...) as `listen` gives it. */
  listen(port: number, host: string): Promise<void> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
  }

  /**
   * Stops accepting (the port is released at once); connections already handed over are the
   * workers' to drain.
   * NOTE: not waiting for the close callback, which counts the handed sockets until the workers
   * report them closed (node's bookkeeping for sent handles), and workers drain on their own.
   */
  close(): void {
    for (const socket of this.waiting) socket.destroy();
    // NOTE: sockets handed and not yet adopted stay until their worker adopts them or goes away.

    if (this.server.listening) this.server.close();
  }

  /** The bound address (for tests that bind port 0). */
  address(): net.AddressInfo {
    return this.server.address() as net.AddressInfo;
  }

  /** Connections accepted and not yet handed over (for tests). */
  get pending(): number {
    return this.waiting.size;
  }

  /** Connections the address holds now, here or in a worker (for tests). */
  openFrom(address: string): number {
    return this.slots.open(address);
  }

  private accept(socket: net.Socket): void {
    const release = this.slots.take(socket.remoteAddress ?? '');
    if (!release) return void socket.destroy();
    this.waiting.add(socket);
    const forget = () => {
      this.waiting.delete(socket);
      release();
    };
    socket.once('close', forget);
    socket.on('error', () => socket.destroy());
    // The request line may come in several segments: bytes are collected until it is whole (a
    // newline), 8 KiB, or the timeout. A connection that has sent nothing by then is cut; one
    // that has sent part of a line is routed with it (round-robin: its line names no session).
    const chunks: Buffer[] = [];
    let length = 0;
    const route = () => {
      socket.off('data', collect);
      socket.pause();
      stopReading(socket);
      socket.setTimeout(0);
      this.waiting.delete(socket);
      socket.off('close', forget);
      const head = Buffer.concat(chunks, length);
      const worker = this.options.pick(slotOfRequest(head));
      if (!worker) {
        socket.once('close', release);
        return void unavailable(socket);
      }
      this.hand(worker, socket, head, release);
    };
    const collect = (chunk: Buffer) => {
      chunks.push(chunk);
      length += chunk.length;
      if (chunk.includes(0x0a) || length >= HEAD_LIMIT) route();
    };
    socket.setTimeout(this.options.firstChunkTimeoutMs ?? 10_000, () => (length > 0 ? route() : socket.destroy()));
    socket.on('data', collect);
    socket.resume();
  }

  private hand(worker: StickyTarget, socket: net.Socket, head: Buffer, release: () => void): void {
    this.watch(worker);
    const id = ++this.sequence;
    // A worker slow to adopt may still take the connection later (the handle is on its way):
    // its slot stays taken until that worker reports it closed or goes away.
    const timer = setTimeout(() => this.drop(id, true), this.options.adoptTimeoutMs ?? 5000);
    this.handed.set(id, { socket, worker, timer, release });
    const message: PrimaryMessage = { type: CONNECTION, id, head: head.toString('base64') };
    // keepOpen: the primary's copy is closed on ADOPTED (or when the worker is gone), not on
    // node's own acknowledgement, which never comes from a worker that dies first.
    worker.send(message, socket, { keepOpen: true }, (error) => {
      if (error) this.drop(id);
    });
  }

  /**
   * Closes the primary's copy of a handed socket: the connection ends unless the worker holds it.
   * `held`: the worker has it (ADOPTED), or may still adopt it (a slow adoption): its slot is
   * kept until the worker reports the connection closed or goes away. Otherwise (the hand-over
   * failed, the worker is gone) the slot is free at once.
   */
  private drop(id: number, held = false): void {
    const entry = this.handed.get(id);
    if (!entry) return;
    this.handed.delete(id);
    clearTimeout(entry.timer);
    entry.socket.destroy();
    if (held) this.adopted.set(id, { worker: entry.worker, release: entry.release });
    else entry.release();
  }

  /** A connection the worker served is closed (or the worker went away): its slot is free. */
  private closed(id: number): void {
    this.drop(id);
    this.adopted.get(id)?.release();
    this.adopted.delete(id);
  }

  private watch(worker: StickyTarget): void {
    if (this.watched.has(worker)) return;
    this.watched.add(worker);
    const onMessage = (message: unknown) => {
      if (!isMessage<WorkerMessage>(message)) return;
      if (message.type === ADOPTED) this.drop(message.id, true);
      else if (message.type === CLOSED) this.closed(message.id);
    };
    const onGone = () => {
      worker.off('message', onMessage);
      for (const [id, entry] of this.handed) if (entry.worker === worker) this.drop(id);
      for (const [id, entry] of this.adopted) if (entry.worker === worker) this.closed(id);
    };
    worker.on('message', onMessage);
    worker.once('exit', onGone);
    worker.once('disconnect', onGone);
  }
}

/**
 * NOTE: `pause()` only stops 'data' events: the socket's handle goes on reading into the
 * stream's buffer, and bytes read there after the first chunk would be lost when the handle is
 * sent (the receiving worker reads from the handle). Stopping the handle's reads keeps them in
 * the kernel until the worker reads them. `_handle.readStop` is internal (stable since Node 0.x).
 */
function stopReading(socket: net.Socket): void {
  (socket as unknown as { _handle?: { readStop?(): number } | null })._handle?.readStop?.();
}

const UNAVAILABLE_BODY = JSON.stringify({ status: { code: 503, message: 'Service Unavailable', detail: 'No worker is serving; retry shortly.' } });
const UNAVAILABLE = [
  'HTTP/1.1 503 Service Unavailable', 'Content-Type: application/json', `Content-Length: ${Buffer.byteLength(UNAVAILABLE_BODY)}`,
  'Retry-After: 1', 'Connection: close', '', UNAVAILABLE_BODY,
].join('\r\n');

/** No worker serves (all are starting or draining): a 503 the client can retry, then the socket goes. */
function unavailable(socket: net.Socket): void {
  socket.setTimeout(1000, () => socket.destroy());
  socket.end(UNAVAILABLE, () => socket.destroy());
}
