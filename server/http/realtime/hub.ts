import type { Principal } from '../../domain/context.js';
import { hasPermission } from '../../domain/context.js';
import type { Permission } from '../../domain/permissions.js';

/** One connected, authorised realtime session (a socket of the web app). */
export interface RealtimeSession {
  principal: Principal;
  send(type: string, payload: Record<string, unknown>): void;
}

/** What a kind of change is called on the channel and who may see it. */
const KINDS = {
  event: { permission: 'view_event', created: 'new_event', updated: 'update_event', id: 'event_id', data: 'event_data' },
  patrol: { permission: 'view_patrol', created: 'new_patrol', updated: 'update_patrol', id: 'patrol_id', data: 'patrol_data' },
} as const satisfies Record<string, { permission: Permission; created: string; updated: string; id: string; data: string }>;

export type RealtimeKind = keyof typeof KINDS;

/**
 * Fan-out of changes to the realtime sessions allowed to see them: same tenant, and the view
 * permission of the kind (checked per session, as the REST reads check it). Each session numbers
 * its messages per type (`mid`), as the web app expects them in sequence.
 */
export class RealtimeHub {
  private readonly sessions = new Set<RealtimeSession & { mids: Map<string, number> }>();

  add(session: RealtimeSession): () => void {
    const entry = { ...session, mids: new Map<string, number>() };
    this.sessions.add(entry);
    return () => this.sessions.delete(entry);
  }

  get size(): number {
    return this.sessions.size;
  }

  publish(tenantId: string, kind: RealtimeKind, change: 'created' | 'updated', data: Record<string, unknown>): void {
    const spec = KINDS[kind];
    const type = spec[change];
    for (const session of this.sessions) {
      if (session.principal.tenantId !== tenantId || !hasPermission(session.principal, spec.permission)) continue;
      const mid = (session.mids.get(type) ?? 0) + 1;
      session.mids.set(type, mid);
      session.send(type, { type, mid, [spec.id]: data.id, [spec.data]: data, matches_current_filter: true, count: 1 });
    }
  }
}
