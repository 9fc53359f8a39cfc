/**
 * The IPC messages between the primary and its workers (node:cluster). Every type is prefixed
 * so that other users of the channel (none today) are told apart.
 */
import type { Registry } from 'prom-client';
import type { RealtimeChange } from '../http/realtime/hub.js';

/** Worker → primary: loaded and listening for messages; asks for its start parameters. */
export const HELLO = 'fieldops:hello';
/** Primary → worker: the port (the primary resolved `--port 0` to a real one) and the worker's slot. */
export const START = 'fieldops:start';
/** Worker → primary: serving requests. */
export const READY = 'fieldops:ready';
/** Worker → primary: it drains (asked, or signalled itself): route no new connection to it. */
export const DRAINING = 'fieldops:draining';
/** Primary → worker: finish in-flight requests, then exit. */
export const SHUTDOWN = 'fieldops:shutdown';
/** Worker → primary: a /metrics request needs the cluster's sum. */
export const METRICS_ASK = 'fieldops:metrics-ask';
/** Primary → worker: its share of a sum, please. */
export const METRICS_COLLECT = 'fieldops:metrics-collect';
/** Worker → primary: its registry, as JSON. */
export const METRICS_LOCAL = 'fieldops:metrics-local';
/** Primary → worker: the sum (or why there is none). */
export const METRICS_SUM = 'fieldops:metrics-sum';

/** Primary → worker, with the socket as the handle: a connection the primary accepted, and the bytes it read first. */
export const CONNECTION = 'fieldops:connection';
/** Worker → primary: it holds the connection `id` (CONNECTION): the primary's copy can go. */
export const ADOPTED = 'fieldops:adopted';
/** Worker → primary: the connection `id` it adopted is closed (its per-address slot is free). */
export const CLOSED = 'fieldops:closed';
/** Worker → primary: a realtime change to relay to every worker. */
export const REALTIME_PUBLISH = 'fieldops:realtime-publish';
/** Primary → worker (every one, the publisher included): a realtime change to deliver to its sessions. */
export const REALTIME_DELIVER = 'fieldops:realtime-deliver';

export type RegistryJson = Awaited<ReturnType<Registry['getMetricsAsJSON']>>;

export type WorkerMessage =
  | { type: typeof HELLO }
  | { type: typeof READY }
  | { type: typeof DRAINING }
  | { type: typeof METRICS_ASK; id: number }
  | { type: typeof METRICS_LOCAL; id: number; metrics: RegistryJson }
  | { type: typeof ADOPTED; id: number }
  | { type: typeof CLOSED; id: number }
  | { type: typeof REALTIME_PUBLISH; change: RealtimeChange };

export type PrimaryMessage =
  | { type: typeof START; port: number; slot: number }
  | { type: typeof CONNECTION; id: number; head: string }
  | { type: typeof REALTIME_DELIVER; change: RealtimeChange }
  | { type: typeof SHUTDOWN }
  | { type: typeof METRICS_COLLECT; id: number }
  | { type: typeof METRICS_SUM; id: number; contentType: string; body: string }
  | { type: typeof METRICS_SUM; id: number; error: string };

export function isMessage<T extends { type: string }>(value: unknown): value is T {
  return typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string' && (value as { type: string }).type.startsWith('fieldops:');
}
