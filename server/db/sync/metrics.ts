import type { Knex } from 'knex';
import { Gauge } from 'prom-client';
import type { Metrics } from '../../metrics/metrics.js';
import type { Dialect } from '../knex.js';
import { horizonAgeSeconds } from './horizon.js';

/**
 * `fieldops_sync_horizon_age_seconds`: how long the change feed's safe horizon has been held by
 * the oldest open transaction (docs/sync.md §7). While it grows, feed pages end `settling` and
 * no checkpoint is given: an alert on it finds the abandoned session before laptops notice.
 * Read at each scrape; a failed read reports -1 rather than failing the scrape. Workers of one
 * cluster see the same database: the gauge takes their maximum.
 */
export function syncMetrics(metrics: Metrics, knex: Knex, dialect: Dialect): void {
  new Gauge({
    name: 'fieldops_sync_horizon_age_seconds',
    help: 'Age of the oldest open PostgreSQL transaction holding back the sync feed horizon (0: none; always 0 on SQLite; -1: could not be read).',
    registers: [metrics.registry],
    aggregator: 'max',
    async collect() {
      this.set(await horizonAgeSeconds(knex, dialect).catch(() => -1));
    },
  });
}
