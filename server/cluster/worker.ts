/**
 * The worker side of `serve --workers N`: the handshake with the primary, the metrics link, and
 * the shutdown request. The worker's server itself is `startWorkerServer` (server/main.ts).
 */
import cluster from 'node:cluster';
import type { Socket } from 'node:net';
import type { RealtimeChange, RealtimeRelay } from '../http/realtime/hub.js';
import type { Registry } from 'prom-client';
import { UnavailableError } from '../domain/errors.js';
import type { ClusterMetrics, Exposition } from '../metrics/metrics.js';
import { ADOPTED, CLOSED, CONNECTION, DRAINING, HELLO, METRICS_ASK, METRICS_COLLECT, METRICS_LOCAL, METRICS_SUM, READY, REALTIME_DELIVER, REALTIME_PUBLISH, SHUTDOWN, START, isMessage, type PrimaryMessage, type WorkerMessage } from './messages.js';

export interface WorkerIdentity {
  /** cluster's worker id: 1, 2, ...; a replacement gets the next one. */
  id: number;
  /** The port every worker shares. */
  port: number;
  /** The worker's place, 0 to N-1; a replacement takes its predecessor's (session ids name it). */
  slot: number;
}

const send = (message: WorkerMessage) => {
  if (process.connected) process.send!(message);
};

/**
 * Says hello and waits for the start parameters. The worker asks (rather than the primary
 * sending at fork) because a message that arrives before a listener exists is lost.
 */
export function joinCluster(): Promise<WorkerIdentity> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: unknown) => {
      if (!isMessage<PrimaryMessage>(message) || message.type !== START) return;
      process.off('message', onMessage);
      process.off('disconnect', onGone);
      resolve({ id: cluster.worker!.id, port: message.port, slot: message.slot });
    };
    const onGone = () => reject(new Error('the primary process went away before this worker started'));
    process.on('message', onMessage);
    process.once('disconnect', onGone);
    send({ type: HELLO });
  });
}

export function reportReady(): void {
  send({ type: READY });
}

/**
 * Resolves when this worker should drain: the primary asks (SHUTDOWN), the primary is gone (the
 * channel closed), or a signal came straight to the worker (Ctrl-C reaches the whole process
 * group). The signal handlers stay installed: a second signal must not kill a draining worker.
 * The primary is told at once (DRAINING), before the server closes, so it routes no new
 * connection here.
 */
export function shutdownRequested(): Promise<string> {
  return new Promise((resolve) => {
    const ignore = () => {};
    const stop = (reason: string) => {
      process.off('message', onMessage);
      process.off('SIGTERM', onTerm);
      process.off('SIGINT', onInt);
      process.on('SIGTERM', ignore);
      process.on('SIGINT', ignore);
      send({ type: DRAINING });
      resolve(reason);
    };
    const onMessage = (message: unknown) => {
      if (isMessage<PrimaryMessage>(message) && message.type === SHUTDOWN) stop('asked by the primary');
    };
    const onTerm = () => stop('SIGTERM');
    const onInt = () => stop('SIGINT');
    process.on('message', onMessage);
    process.on('SIGTERM', onTerm);
    process.on('SIGINT', onInt);
    process.once('disconnect', () => stop('the primary went away'));
  });
}

/** Lets the worker's event loop end once its server and pools are closed. */
export function leaveCluster(): void {
  if (process.connected) process.disconnect();
}

/**
 * A worker's metrics: its registry goes to the primary on request, and its /metrics answers
 * the primary's sum over every ready worker.
 */
export class WorkerMetricsLink implements ClusterMetrics {
  private sequence = 0;
  private readonly waiting = new Map<number, { resolve(value: Exposition): void; reject(error: Error): void }>();

  constructor(private readonly timeoutMs = 5000) {}

  share(registry: Registry): void {
    process.on('message', (message: unknown) => {
      if (!isMessage<PrimaryMessage>(message)) return;
      if (message.type === METRICS_COLLECT) {
        void registry.getMetricsAsJSON().then((metrics) => send({ type: METRICS_LOCAL, id: message.id, metrics }));
      } else if (message.type === METRICS_SUM) {
        const waiter = this.waiting.get(message.id);
        this.waiting.delete(message.id);
        if (!waiter) return;
        if ('error' in message) waiter.reject(new UnavailableError(`the metrics of the workers could not be summed: ${message.error}`, 1));
        else waiter.resolve({ contentType: message.contentType, body: message.body });
      }
    });
  }

  exposition(): Promise<Exposition> {
    const id = ++this.sequence;
    return new Promise<Exposition>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        reject(new UnavailableError('the primary did not answer with the workers\' metrics in time', 1));
      }, this.timeoutMs);
      this.waiting.set(id, {
        resolve: (value) => (clearTimeout(timer), resolve(value)),
        reject: (error) => (clearTimeout(timer), reject(error)),
      });
      send({ type: METRICS_ASK, id });
    });
  }
}

/**
 * Passes the connections the primary hands over (server/cluster/sticky.ts) to `adopt`, with the
 * bytes the primary read from each first, tells the primary each is held (it closes its copy),
 * and later that it is closed (the primary counts connections per address until then).
 */
export function receiveConnections(adopt: (socket: Socket, head: Buffer) => void): void {
  process.on('message', (message: unknown, handle: unknown) => {
    if (!isMessage<PrimaryMessage>(message) || message.type !== CONNECTION || !handle) return;
    const socket = handle as Socket;
    const { id } = message;
    // 'close' comes in a later turn than this one, so ADOPTED always reaches the primary first.
    socket.once('close', () => send({ type: CLOSED, id }));
    adopt(socket, Buffer.from(message.head, 'base64'));
    send({ type: ADOPTED, id });
  });
}

/**
 * A worker's realtime relay: each change goes to the primary, which sends it back to every
 * worker, this one included. Without the primary (it went away) changes are dropped: the
 * worker is draining.
 */
export class WorkerRealtimeRelay implements RealtimeRelay {
  publish(change: RealtimeChange): void {
    send({ type: REALTIME_PUBLISH, change });
  }

  subscribe(deliver: (change: RealtimeChange) => void): void {
    process.on('message', (message: unknown) => {
      if (isMessage<PrimaryMessage>(message) && message.type === REALTIME_DELIVER) deliver(message.change);
    });
  }
}
