import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { PoolStats } from '../db/knex.js';
import type { SteadyOutcome } from '../domain/sensors/intake.js';

export type TokenGrant = 'password' | 'refresh_token' | 'authorization_code';
export type ObservationOutcome = 'created' | 'duplicate' | 'rejected';

/** A Prometheus text exposition. */
export interface Exposition {
  contentType: string;
  body: string;
}

/**
 * In a cluster worker: how its registry reaches the primary, and how the whole cluster's sum is
 * read (whichever worker answers /metrics). See WorkerMetricsLink in server/cluster/worker.ts.
 */
export interface ClusterMetrics {
  share(registry: Registry): void;
  exposition(): Promise<Exposition>;
}

/**
 * The process's Prometheus metrics, on a registry of its own (never prom-client's global one):
 * built once by the composition root and handed to what records into it. Several runtimes in
 * one process (tests) each have their own.
 */
export class Metrics {
  readonly registry = new Registry();
  private readonly requestSeconds: Histogram<'route' | 'method' | 'status'>;
  private readonly conditionalGets: Counter<'route' | 'outcome'>;
  private readonly tokens: Counter<'grant'>;
  private readonly observationsTotal: Counter<'outcome'>;
  private readonly steadyTotal: Counter<'outcome'>;

  private readonly cluster: ClusterMetrics | null;

  constructor(options: { pool: () => PoolStats; processMetrics?: boolean; cluster?: ClusterMetrics }) {
    const registers = [this.registry];
    this.requestSeconds = new Histogram({
      name: 'fieldops_http_request_duration_seconds',
      help: 'HTTP request duration by route (the route table name; "unmatched" for none), method and status.',
      labelNames: ['route', 'method', 'status'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    this.conditionalGets = new Counter({
      name: 'fieldops_http_conditional_get_total',
      help: 'GET requests carrying If-None-Match or If-Modified-Since, by route and outcome (304 not modified, 200 sent).',
      labelNames: ['route', 'outcome'],
      registers,
    });
    this.tokens = new Counter({ name: 'fieldops_oauth_tokens_issued_total', help: 'Token pairs issued by the token endpoint, by grant type.', labelNames: ['grant'], registers });
    this.observationsTotal = new Counter({
      name: 'fieldops_sensor_observations_total',
      help: 'Sensor observations received, by outcome: created, duplicate (already stored), rejected (in a batch refused as invalid).',
      labelNames: ['outcome'],
      registers,
    });
    this.steadyTotal = new Counter({
      name: 'fieldops_sensor_steady_batches_total',
      help: 'Sensor intake batches by how they were stored: remembered (on what the process remembered, one statement), read (after reading provider, sources and subjects), transaction (not steady: something to create or change); and stale (an insert whose stamp no longer held, then decided again).',
      labelNames: ['outcome'],
      registers,
    });
    new Gauge({
      name: 'fieldops_db_pool_connections',
      help: 'Database pool connections by state: used, free, pending_acquire (requests waiting), pending_create, max.',
      labelNames: ['state'],
      registers,
      collect() {
        const stats = options.pool();
        this.set({ state: 'used' }, stats.used);
        this.set({ state: 'free' }, stats.free);
        this.set({ state: 'pending_acquire' }, stats.pendingAcquires);
        this.set({ state: 'pending_create' }, stats.pendingCreates);
        this.set({ state: 'max' }, stats.max);
      },
    });
    if (options.processMetrics) collectDefaultMetrics({ register: this.registry, prefix: 'fieldops_' });
    this.cluster = options.cluster ?? null;
    this.cluster?.share(this.registry);
  }

  observeRequest(route: string, method: string, status: number, seconds: number): void {
    this.requestSeconds.observe({ route, method, status: String(status) }, seconds);
  }

  conditionalGet(route: string, status: number): void {
    this.conditionalGets.inc({ route, outcome: String(status) });
  }

  tokenIssued(grant: TokenGrant): void {
    this.tokens.inc({ grant });
  }

  observations(outcome: ObservationOutcome, count: number): void {
    if (count > 0) this.observationsTotal.inc({ outcome }, count);
  }

  steadyBatch(outcome: SteadyOutcome): void {
    this.steadyTotal.inc({ outcome });
  }

  /** The Prometheus text exposition: this process's, or in a cluster the sum over its workers. */
  async exposition(): Promise<Exposition> {
    if (this.cluster) return this.cluster.exposition();
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
