import type { IncomingMessage } from 'node:http';
import type { Logger } from 'pino';
import type { DropReason, RefusalReason } from './metrics.js';

/** The realtime channel's configured limits (FIELDOPS_REALTIME_*, server/config.ts). */
export interface RealtimeLimits {
  /**
   * A session must be authorised within this time of its handshake, or it is closed; the same
   * holds again from the moment its last authorised socket goes (it leaves, or its token ends).
   */
  readonly authorizeSeconds: number;
  /** Sessions one client address may hold open at once; 0: no cap. */
  readonly sessionsPerAddress: number;
  /** Sessions the process holds open at once. */
  readonly sessions: number;
}

/**
 * Packets a session may send (every engine.io packet, whatever it carries): a burst of
 * BURST_PACKETS, refilled at PACKETS_PER_SECOND. The web app sends a handful on connecting
 * (authorization, profile, filters), then an echo every 30 s and a pong every 25 s.
 */
export const BURST_PACKETS = 100;
export const PACKETS_PER_SECOND = 10;
/**
 * Outgoing packets a session may have waiting for its transport (a long-polling client between
 * two polls, a WebSocket whose peer does not read). A client that reads takes them within a
 * round trip; one that does not is dropped at the bound instead of growing the server's heap.
 */
export const WRITE_BUFFER_PACKETS = 256;
/** The same bound in bytes, past the first waiting packet (one large event may always wait). */
export const WRITE_BUFFER_BYTES = 8 * 1024 * 1024;
const SWEEP_MS = 500;

/** The bytes a packet's data takes (strings count in UTF-8, as they are sent); 0 for none. */
function byteLength(data: unknown): number {
  if (typeof data === 'string') return Buffer.byteLength(data);
  if (data instanceof ArrayBuffer || ArrayBuffer.isView(data)) return data.byteLength;
  return 0;
}

/** What the guard reads and does on an engine.io session (engine.io's `Socket`). */
export interface EngineConn {
  readonly request: IncomingMessage;
  on(event: 'packet' | 'packetCreate', listener: (packet: { type: string; data?: unknown }) => void): unknown;
  on(event: 'flush', listener: () => void): unknown;
  on(event: 'upgrading', listener: (transport: PacketSource) => void): unknown;
  once(event: 'upgrade' | 'close', listener: () => void): unknown;
  close(discard?: boolean): unknown;
}

interface PacketSource {
  on(event: 'packet', listener: () => void): unknown;
  off(event: 'packet', listener: () => void): unknown;
}

/** Who a handshake comes from, as the HTTP side reads it (ctx.ip, requestOrigin). */
export interface Handshake {
  address: string;
  /** The origin this session's URLs are built on; null: its Host is not a valid host[:port]. */
  origin: string | null;
}

interface SessionState {
  address: string;
  origin: string;
  /** Since when the authorization deadline runs (the handshake, or the last authorised socket's end). */
  deadlineFrom: number;
  /** Sockets of the session registered as authorised now; the deadline applies while there are none. */
  authorized: number;
  dropped: boolean;
  tokens: number;
  refilledAt: number;
  pendingPackets: number;
  pendingBytes: number;
  pendingSince: number | null;
}

/**
 * Bounds what one realtime client can make the server hold (issue 24): handshakes beyond the
 * per-address or total cap are refused by engine.io's `allowRequest` (403 with engine.io's error
 * body), a session that is not authorised within its deadline is closed, and a session that
 * sends packets faster than its allowance, lets its outgoing buffer pass the bound, or does
 * not read it for a heartbeat's time (`stallMs`), is dropped. Everything here is O(1) per
 * packet, and one sweep every half second over the open sessions.
 */
export class SessionGuard {
  private readonly sessions = new Map<EngineConn, SessionState>();
  private readonly perAddress = new Map<string, number>();
  private readonly handshakes = new WeakMap<IncomingMessage, Handshake & { origin: string }>();
  private readonly sweep: NodeJS.Timeout;

  constructor(
    private readonly deps: {
      limits: RealtimeLimits;
      /** How long a packet may wait for a client to read it. */
      stallMs: number;
      handshake(req: IncomingMessage): Handshake;
      refused(reason: RefusalReason): void;
      dropped(reason: DropReason): void;
      logger: Logger;
    },
  ) {
    this.sweep = setInterval(() => this.checkDeadlines(), SWEEP_MS).unref();
  }

  /** engine.io's `allowRequest` (handshakes only): refuses beyond the caps, or a bad Host. */
  allowRequest = (req: IncomingMessage, callback: (message: string | null, success: boolean) => void): void => {
    const { address, origin } = this.deps.handshake(req);
    const { sessions, sessionsPerAddress } = this.deps.limits;
    const refuse = (reason: RefusalReason, message: string) => {
      this.deps.refused(reason);
      callback(message, false);
    };
    if (origin === null) return refuse('invalid_host', 'The Host header (or the forwarded host or scheme) is not a valid host[:port]');
    if (this.sessions.size >= sessions) return refuse('total', 'The server holds too many realtime sessions');
    if (sessionsPerAddress > 0 && (this.perAddress.get(address) ?? 0) >= sessionsPerAddress) return refuse('per_address', 'Too many realtime sessions from this address');
    this.handshakes.set(req, { address, origin });
    callback(null, true);
  };

  /** Takes charge of a new engine.io session (engine.io's `connection` event). */
  admit(conn: EngineConn): void {
    const known = this.handshakes.get(conn.request);
    const handshake = known ?? this.deps.handshake(conn.request);
    const now = Date.now();
    const state: SessionState = {
      address: handshake.address,
      origin: handshake.origin ?? 'http://localhost',
      deadlineFrom: now,
      authorized: 0,
      dropped: false,
      tokens: BURST_PACKETS,
      refilledAt: now,
      pendingPackets: 0,
      pendingBytes: 0,
      pendingSince: null,
    };
    this.sessions.set(conn, state);
    this.perAddress.set(state.address, (this.perAddress.get(state.address) ?? 0) + 1);
    const spend = () => {
      const at = Date.now();
      state.tokens = Math.min(BURST_PACKETS, state.tokens + ((at - state.refilledAt) * PACKETS_PER_SECOND) / 1000);
      state.refilledAt = at;
      if (state.tokens < 1) return this.drop(conn, state, 'message_rate');
      state.tokens -= 1;
    };
    conn.on('packet', spend);
    // A transport being upgraded answers its probes itself, before the session sees its packets.
    // ('upgrading' comes with each probe; the transport's packets are the session's once upgraded.)
    let probing: PacketSource | null = null;
    conn.on('upgrading', (transport) => {
      if (probing === transport) return;
      probing?.off('packet', spend);
      probing = transport;
      transport.on('packet', spend);
    });
    conn.once('upgrade', () => {
      probing?.off('packet', spend);
      probing = null;
    });
    conn.on('packetCreate', (packet) => {
      state.pendingPackets += 1;
      state.pendingBytes += byteLength(packet.data);
      state.pendingSince ??= Date.now();
      if (state.pendingPackets > WRITE_BUFFER_PACKETS || (state.pendingPackets > 1 && state.pendingBytes > WRITE_BUFFER_BYTES)) this.drop(conn, state, 'write_buffer');
    });
    conn.on('flush', () => {
      state.pendingPackets = 0;
      state.pendingBytes = 0;
      state.pendingSince = null;
    });
    conn.once('close', () => {
      this.sessions.delete(conn);
      const left = (this.perAddress.get(state.address) ?? 1) - 1;
      if (left <= 0) this.perAddress.delete(state.address);
      else this.perAddress.set(state.address, left);
    });
  }

  /** The origin a session's pushed URLs are built on (its handshake's). */
  originOf(conn: EngineConn): string {
    return this.sessions.get(conn)?.origin ?? 'http://localhost';
  }

  /**
   * A socket of the session was authorised: the deadline no longer applies, until the returned
   * release (idempotent) has been called for each of its authorised sockets (each left, or its
   * token ended). The deadline then restarts: a session with no authorised socket could otherwise
   * hold its slots for ever on heartbeats alone.
   */
  authorized(conn: EngineConn): () => void {
    const state = this.sessions.get(conn);
    if (!state) return () => {};
    state.authorized += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      state.authorized -= 1;
      if (state.authorized === 0) state.deadlineFrom = Date.now();
    };
  }

  /** Packets waiting in all sessions' outgoing buffers (the `queued_packets` gauge). */
  get queuedPackets(): number {
    let sum = 0;
    for (const state of this.sessions.values()) sum += state.pendingPackets;
    return sum;
  }

  get size(): number {
    return this.sessions.size;
  }

  close(): void {
    clearInterval(this.sweep);
  }

  private checkDeadlines(): void {
    const now = Date.now();
    const deadline = this.deps.limits.authorizeSeconds * 1000;
    for (const [conn, state] of this.sessions) {
      if (state.authorized === 0 && now - state.deadlineFrom >= deadline) this.drop(conn, state, 'authorization_deadline');
      else if (state.pendingSince !== null && now - state.pendingSince >= this.deps.stallMs) this.drop(conn, state, 'stalled');
    }
  }

  /**
   * Closes the session at once, discarding what it has not read. NOTE: this may run inside
   * engine.io's packet loop; once closed, the session's remaining packets are ignored. A
   * long-polling session that socket.io has already begun to close (a packet out of place)
   * ends at the client's next poll or engine.io's 30 s close timeout, whichever comes first.
   */
  private drop(conn: EngineConn, state: SessionState, reason: DropReason): void {
    if (state.dropped) return;
    state.dropped = true;
    this.deps.dropped(reason);
    this.deps.logger.debug({ reason, address: state.address }, 'realtime session dropped');
    conn.close(true);
  }
}
