/**
 * The primary side of `serve --workers N`: forks N workers, picks the worker for each connection
 * (`route`, for server/cluster/sticky.ts), replaces a worker that dies (with a growing back-off,
 * so a crash loop does not spin), relays each realtime change to every worker, sums the
 * workers' metrics for whichever worker answers /metrics, and drains every worker on stop.
 *
 * The primary serves no requests and holds no database connection: the one-time start-up work
 * (checks, migrations, bootstrap) is done before the supervisor starts.
 */
import cluster, { type Worker } from 'node:cluster';
import type { Logger } from 'pino';
import { AggregatorRegistry } from 'prom-client';
import type { Exposition } from '../metrics/metrics.js';
import { DRAINING, HELLO, METRICS_ASK, METRICS_COLLECT, METRICS_LOCAL, METRICS_SUM, READY, REALTIME_DELIVER, REALTIME_PUBLISH, SHUTDOWN, START, isMessage, type PrimaryMessage, type RegistryJson, type WorkerMessage } from './messages.js';

export interface SupervisorOptions {
  count: number;
  /** The port every worker listens on (a real one: `--port 0` is resolved by the primary first). */
  port: number;
  logger: Logger;
  /** Replacement delays: `initialMs` doubling per consecutive failure up to `maxMs`; a worker up for `healthyMs` resets it. */
  backoff?: { initialMs: number; maxMs: number; healthyMs: number };
  /** How long a stop waits for the workers to drain before killing them. */
  stopTimeoutMs?: number;
  /** How long a metrics sum waits for each worker's share. */
  metricsTimeoutMs?: number;
}

interface Slot {
  index: number;
  worker: Worker | null;
  /** Said hello: from then on it listens for SHUTDOWN (before, a signal stops it). */
  greeted: boolean;
  ready: boolean;
  startedAt: number;
  failures: number;
  restart: NodeJS.Timeout | null;
}

/** Thrown by `start` when a worker dies before it serves: its own error is on stderr already. */
export class WorkerStartError extends Error {
  override name = 'WorkerStartError';
}

const REPLACE_DRAINING_MS = 100;
const DEFAULT_BACKOFF = { initialMs: 250, maxMs: 30_000, healthyMs: 10_000 };

export class WorkerSupervisor {
  private readonly slots: Slot[];
  private readonly backoff: { initialMs: number; maxMs: number; healthyMs: number };
  private stopping: Promise<void> | null = null;
  private starting: { resolve(): void; reject(error: Error): void } | null = null;
  private sequence = 0;
  private nextSlot = 0;
  /** Workers draining on their own (a signal to them alone), out of their slot: replaced already. */
  private readonly draining = new Set<Worker>();
  private readonly collecting = new Map<string, { resolve(metrics: RegistryJson | null): void }>();
  private readonly listener = (worker: Worker, message: unknown) => this.onMessage(worker, message);

  constructor(private readonly options: SupervisorOptions) {
    this.backoff = options.backoff ?? DEFAULT_BACKOFF;
    this.slots = Array.from({ length: options.count }, (_, index) => ({ index, worker: null, greeted: false, ready: false, startedAt: 0, failures: 0, restart: null }));
  }

  /** Forks every worker; resolves once all serve, rejects (after stopping the others) if one dies first. */
  async start(): Promise<void> {
    cluster.on('message', this.listener);
    const started = new Promise<void>((resolve, reject) => (this.starting = { resolve, reject }));
    for (const slot of this.slots) this.fork(slot);
    try {
      await started;
    } catch (error) {
      await this.stop();
      throw error;
    } finally {
      this.starting = null;
    }
  }

  /** The pids of the workers now running (for the banner and tests). */
  pids(): number[] {
    return this.slots.flatMap((slot) => (slot.worker?.process.pid ? [slot.worker.process.pid] : []));
  }

  /**
   * The worker for a new connection: the one in `slot` (the slot its session id names) if it
   * serves, else the next serving one round-robin; null while none serves.
   */
  route(slot: number | null): Worker | null {
    const serving = (candidate: Slot | undefined) => (candidate?.ready && candidate.worker?.isConnected() ? candidate.worker : null);
    const named = slot === null ? null : serving(this.slots[slot]);
    if (named) return named;
    for (let i = 0; i < this.slots.length; i++) {
      const worker = serving(this.slots[this.nextSlot++ % this.slots.length]);
      if (worker) return worker;
    }
    return null;
  }

  /** Asks every worker to drain (in-flight requests finish), waits for them to exit; kills stragglers after the timeout. */
  stop(): Promise<void> {
    return (this.stopping ??= (async () => {
      const running = this.slots.flatMap((slot) => {
        if (slot.restart) clearTimeout(slot.restart);
        slot.restart = null;
        const worker = slot.worker;
        if (!worker || worker.isDead()) return [];
        const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
        if (slot.greeted && worker.isConnected()) worker.send({ type: SHUTDOWN } satisfies PrimaryMessage);
        else worker.process.kill('SIGTERM');
        return [exited];
      });
      for (const worker of this.draining) if (!worker.isDead()) running.push(new Promise<void>((resolve) => worker.once('exit', () => resolve())));
      const timer = setTimeout(() => {
        for (const slot of this.slots) if (slot.worker && !slot.worker.isDead()) slot.worker.process.kill('SIGKILL');
        for (const worker of this.draining) if (!worker.isDead()) worker.process.kill('SIGKILL');
      }, this.options.stopTimeoutMs ?? 30_000);
      await Promise.all(running);
      clearTimeout(timer);
      cluster.off('message', this.listener);
    })());
  }

  private fork(slot: Slot): void {
    slot.restart = null;
    slot.greeted = false;
    slot.ready = false;
    slot.startedAt = Date.now();
    const worker = cluster.fork();
    slot.worker = worker;
    worker.on('exit', (code, signal) => this.onExit(slot, worker, code, signal));
  }

  private onExit(slot: Slot, worker: Worker, code: number | null, signal: string | null): void {
    if (this.draining.delete(worker)) {
      this.options.logger.info({ worker: worker.id, workerPid: worker.process.pid, exitCode: code, signal }, 'worker stopped');
      return;
    }
    const wasReady = slot.ready;
    if (slot.worker === worker) {
      slot.worker = null;
      slot.ready = false;
    }
    for (const [key, waiter] of this.collecting) if (key.endsWith(`:${worker.id}`)) waiter.resolve(null);
    const how = signal ? `signal ${signal}` : `code ${code}`;
    const who = { worker: worker.id, workerPid: worker.process.pid };
    if (this.stopping) {
      this.options.logger.info({ ...who, exitCode: code, signal }, 'worker stopped');
      return;
    }
    if (this.starting && !wasReady) {
      this.starting.reject(new WorkerStartError(`worker ${worker.id} (pid ${worker.process.pid}) exited (${how}) before it served`));
      return;
    }
    if (Date.now() - slot.startedAt >= this.backoff.healthyMs) slot.failures = 0;
    const delay = Math.min(this.backoff.maxMs, this.backoff.initialMs * 2 ** slot.failures);
    slot.failures++;
    this.options.logger.warn({ ...who, exitCode: code, signal, restartInMs: delay, consecutiveFailures: slot.failures }, `worker ${worker.id} exited unexpectedly (${how}); replacing it in ${delay} ms`);
    slot.restart = setTimeout(() => this.fork(slot), delay);
  }

  private onMessage(worker: Worker, message: unknown): void {
    const slot = this.slots.find((candidate) => candidate.worker === worker);
    if (!slot || !isMessage<WorkerMessage>(message)) return;
    if (message.type === HELLO) {
      if (this.stopping) return void worker.process.kill('SIGTERM');
      slot.greeted = true;
      send(worker, { type: START, port: this.options.port, slot: slot.index });
    } else if (message.type === READY) {
      slot.ready = true;
      this.options.logger.info({ worker: worker.id, workerPid: worker.process.pid }, 'worker serving');
      if (this.starting && this.slots.every((candidate) => candidate.ready)) this.starting.resolve();
    } else if (message.type === DRAINING) {
      slot.ready = false;
      if (this.stopping || this.starting) return;
      // It drains on its own: out of its slot (no new connection), and a replacement takes it.
      // NOTE: after a moment, which a Ctrl-C (the signal reaches the primary too, which then
      // stops everything) uses to cancel it rather than fork a worker only to stop it.
      this.draining.add(worker);
      slot.worker = null;
      this.options.logger.warn({ worker: worker.id, workerPid: worker.process.pid }, `worker ${worker.id} is draining on its own; replacing it`);
      slot.restart = setTimeout(() => this.fork(slot), REPLACE_DRAINING_MS);
    } else if (message.type === METRICS_ASK) {
      this.sum().then(
        (exposition) => send(worker, { type: METRICS_SUM, id: message.id, ...exposition }),
        (error: Error) => send(worker, { type: METRICS_SUM, id: message.id, error: error.message }),
      );
    } else if (message.type === METRICS_LOCAL) {
      this.collecting.get(`${message.id}:${worker.id}`)?.resolve(message.metrics);
    } else if (message.type === REALTIME_PUBLISH) {
      // To every worker, the publisher too: each delivers in the order the primary relays, so
      // the sessions of every worker see the changes in one order.
      for (const candidate of this.slots) if (candidate.greeted && candidate.worker) send(candidate.worker, { type: REALTIME_DELIVER, change: message.change });
    }
  }

  /**
   * The sum over the ready workers (prom-client's aggregation: counters and histograms add up,
   * gauges by their declared aggregator). A worker that exits meanwhile is left out; one that
   * does not answer in time fails the sum, rather than return a silently partial one.
   */
  private async sum(): Promise<Exposition> {
    const id = ++this.sequence;
    const workers = this.slots.flatMap((slot) => (slot.ready && slot.worker?.isConnected() ? [slot.worker] : []));
    const shares = await Promise.all(workers.map((worker) => this.collect(worker, id)));
    const registry = AggregatorRegistry.aggregate(shares.filter((share): share is RegistryJson => share !== null));
    return { contentType: registry.contentType, body: await registry.metrics() };
  }

  private collect(worker: Worker, id: number): Promise<RegistryJson | null> {
    const key = `${id}:${worker.id}`;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.collecting.delete(key);
        reject(new Error(`worker ${worker.id} did not answer in time`));
      }, this.options.metricsTimeoutMs ?? 3000);
      this.collecting.set(key, {
        resolve: (metrics) => {
          clearTimeout(timer);
          this.collecting.delete(key);
          resolve(metrics);
        },
      });
      send(worker, { type: METRICS_COLLECT, id });
    });
  }
}

function send(worker: Worker, message: PrimaryMessage): void {
  if (worker.isConnected()) worker.send(message);
}
