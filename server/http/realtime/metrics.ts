import { Counter, Gauge } from 'prom-client';
import type { Metrics } from '../../metrics/metrics.js';

/** What the realtime channel reports at each scrape. */
export interface RealtimeCounts {
  /** engine.io sessions open now, authorised or not. */
  connected: number;
  /** Sessions registered with the hub (authorised: they receive changes). */
  authorized: number;
  /** Packets written to sessions and not yet taken by their transport, over all sessions. */
  queuedPackets: number;
}

export type DropReason = 'authorization_deadline' | 'message_rate' | 'write_buffer' | 'stalled';
export type RefusalReason = 'per_address' | 'total' | 'invalid_host';

/**
 * The realtime channel's metrics, on the process's registry (summed over workers in a cluster):
 * sessions by state, queued packets (the bound of issue 24 made visible), and sessions dropped
 * or refused by reason.
 */
export function realtimeMetrics(metrics: Metrics, counts: () => RealtimeCounts): { dropped(reason: DropReason): void; refused(reason: RefusalReason): void } {
  const registers = [metrics.registry];
  new Gauge({
    name: 'fieldops_realtime_sessions',
    help: 'Realtime (socket.io) sessions by state: connected (every engine.io session), authorized (registered to receive changes).',
    labelNames: ['state'],
    registers,
    collect() {
      const now = counts();
      this.set({ state: 'connected' }, now.connected);
      this.set({ state: 'authorized' }, now.authorized);
    },
  });
  new Gauge({
    name: 'fieldops_realtime_queued_packets',
    help: 'Packets written to realtime sessions and not yet taken by their transport (a client that does not read), over all sessions.',
    registers,
    collect() {
      this.set(counts().queuedPackets);
    },
  });
  const dropped = new Counter({ name: 'fieldops_realtime_dropped_total', help: 'Realtime sessions closed by the server, by reason: authorization_deadline, message_rate, write_buffer, stalled.', labelNames: ['reason'], registers });
  const refused = new Counter({ name: 'fieldops_realtime_refused_total', help: 'Realtime handshakes refused, by reason: per_address, total (the caps), invalid_host.', labelNames: ['reason'], registers });
  return { dropped: (reason) => dropped.inc({ reason }), refused: (reason) => refused.inc({ reason }) };
}
