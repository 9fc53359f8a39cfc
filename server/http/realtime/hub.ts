import type { Principal } from '../../domain/context.js';
import { hasPermission } from '../../domain/context.js';
import type { Permission } from '../../domain/permissions.js';
import { withOrigin } from './urls.js';

/** One connected, authorised realtime session (a socket of the web app). */
export interface RealtimeSession {
  /** The tenant of the session's token (fixed for the token's life). */
  tenantId: string;
  /** The origin of the session's own handshake: the absolute URLs it is sent are built on it. */
  origin: string;
  /**
   * The session's principal now, from its token: null when the token has expired or was revoked
   * since (or its user deactivated). Permissions are the current ones. Rejects when the token
   * cannot be checked now (the database is unavailable): that delivery is skipped, the session kept.
   */
  authorize(): Promise<Principal | null>;
  send(type: string, payload: Record<string, unknown>): void;
  /** Ends the session (its token is no longer valid). */
  close(): void;
}

/** What a kind of change is called on the channel and who may see it. */
const KINDS = {
  event: { permission: 'view_event', created: 'new_event', updated: 'update_event', id: 'event_id', data: 'event_data' },
  patrol: { permission: 'view_patrol', created: 'new_patrol', updated: 'update_patrol', id: 'patrol_id', data: 'patrol_data' },
  // The web app listens for `radio_message` and reads the message from `data` (new and changed alike).
  message: { permission: 'view_message', created: 'radio_message', updated: 'radio_message', id: 'message_id', data: 'data' },
} as const satisfies Record<string, { permission: Permission; created: string; updated: string; id: string; data: string }>;

export type RealtimeKind = keyof typeof KINDS;

/**
 * One change as published: plain JSON, so that it can travel between processes, and
 * host-independent: its URLs are paths (urls.ts `withoutOrigin`), made absolute per session.
 */
export interface RealtimeChange {
  tenantId: string;
  kind: RealtimeKind;
  change: 'created' | 'updated';
  data: Record<string, unknown>;
}

/**
 * How changes reach the hubs of other processes (the workers of `serve --workers N`): `publish`
 * hands a change over, and every hub, the publisher's included, is given it back through the
 * handler passed to `subscribe`, all in one order. Without a relay a hub delivers at once.
 */
export interface RealtimeRelay {
  publish(change: RealtimeChange): void;
  subscribe(deliver: (change: RealtimeChange) => void): void;
}

type Entry = RealtimeSession & { mids: Map<string, number>; queue: Promise<void> };

/**
 * Fan-out of changes to the realtime sessions allowed to see them: same tenant, and the view
 * permission of the kind. Each delivery re-resolves the session's token (the same cached check
 * as a REST call), so a revoked or expired token, or a removed permission, stops the messages
 * as it stops REST reads, and the session is closed. Deliveries to one session run in order and
 * number its messages per type (`mid`), as the web app expects them in sequence.
 */
export class RealtimeHub {
  private readonly sessions = new Set<Entry>();

  constructor(private readonly relay: RealtimeRelay | null = null) {
    relay?.subscribe((change) => this.deliverLocally(change));
  }

  add(session: RealtimeSession): () => void {
    const entry: Entry = { ...session, mids: new Map<string, number>(), queue: Promise.resolve() };
    this.sessions.add(entry);
    return () => this.sessions.delete(entry);
  }

  /** Sessions registered now (read-only; the `authorized` realtime gauge). */
  get size(): number {
    return this.sessions.size;
  }

  /** Whether a published change may reach a session: with a relay, sessions elsewhere count too. */
  get listening(): boolean {
    return this.relay !== null || this.sessions.size > 0;
  }

  publish(tenantId: string, kind: RealtimeKind, change: 'created' | 'updated', data: Record<string, unknown>): void {
    if (this.relay) this.relay.publish({ tenantId, kind, change, data });
    else this.deliverLocally({ tenantId, kind, change, data });
  }

  private deliverLocally({ tenantId, kind, change, data }: RealtimeChange): void {
    for (const session of this.sessions) {
      if (session.tenantId !== tenantId) continue;
      session.queue = session.queue.then(() => this.deliver(session, kind, change, data));
    }
  }

  private async deliver(session: Entry, kind: RealtimeKind, change: 'created' | 'updated', data: Record<string, unknown>): Promise<void> {
    const spec = KINDS[kind];
    const principal = await session.authorize().catch(() => undefined);
    if (!this.sessions.has(session) || principal === undefined) return;
    if (principal === null) {
      this.sessions.delete(session);
      session.close();
      return;
    }
    if (!hasPermission(principal, spec.permission)) return;
    const type = spec[change];
    const mid = (session.mids.get(type) ?? 0) + 1;
    session.mids.set(type, mid);
    session.send(type, { type, mid, [spec.id]: data.id, [spec.data]: withOrigin(kind, data, session.origin), matches_current_filter: true, count: 1 });
  }
}
