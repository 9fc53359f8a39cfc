import { Pool } from 'undici';

export type MixedKind = 'catalog 304' | 'patrol read' | 'patrol write' | 'sensor batch';

export interface MixedResult {
  requests: number;
  seconds: number;
  perSecond: number;
  /** `<kind> <status>` → count. */
  statuses: Record<string, number>;
  /** Milliseconds per kind, unsorted. */
  latencies: Record<MixedKind, number[]>;
}

/**
 * The mixed load of bench/load.ts as a reusable closed loop: 80% conditional catalog GETs,
 * 10% patrol reads and writes, 10% sensor batches of 20, from `concurrency` callers. The
 * server must have the demo data (`routine_patrol`). `tag` keeps sensor keys apart between runs.
 */
export async function runMixed(origin: string, auth: Record<string, string>, etag: string, options: { concurrency: number; seconds: number; tag: string }): Promise<MixedResult> {
  const pool = new Pool(origin, { connections: options.concurrency });
  const latencies: Record<MixedKind, number[]> = { 'catalog 304': [], 'patrol read': [], 'patrol write': [], 'sensor batch': [] };
  const statuses: Record<string, number> = {};
  let sequence = 0;
  const call = async (kind: MixedKind, method: string, route: string, body?: unknown, headers: Record<string, string> = {}) => {
    const begin = process.hrtime.bigint();
    const response = await pool.request({ method: method as 'GET', path: route, headers: { ...auth, ...headers, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
    await response.body.arrayBuffer();
    latencies[kind].push(Number(process.hrtime.bigint() - begin) / 1e6);
    const key = `${kind} ${response.statusCode}`;
    statuses[key] = (statuses[key] ?? 0) + 1;
  };
  const started = process.hrtime.bigint();
  const deadline = Date.now() + options.seconds * 1000;
  const caller = async (id: number) => {
    while (Date.now() < deadline) {
      const n = sequence++;
      const roll = n % 10;
      if (roll < 8) await call('catalog 304', 'GET', '/api/v1.0/activity/patrols/types', undefined, { 'If-None-Match': etag });
      else if (roll === 8 && n % 20 === 8) await call('patrol write', 'POST', '/api/v1.0/activity/patrols', { title: `load ${n}`, patrol_segments: [{ patrol_type: 'routine_patrol' }] });
      else if (roll === 8) await call('patrol read', 'GET', '/api/v1.0/activity/patrols?page_size=25');
      else await call('sensor batch', 'POST', `/sensors/gps-radio/${options.tag}/status`, Array.from({ length: 20 }, (_, i) => ({ manufacturer_id: `${options.tag}-${id}`, recorded_at: new Date(Date.UTC(2026, 0, 1) + n * 1000 + i).toISOString(), location: { lat: -1, lon: 36 } })));
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, (_, id) => caller(id)));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  await pool.close();
  const requests = Object.values(latencies).reduce((sum, list) => sum + list.length, 0);
  return { requests, seconds, perSecond: requests / seconds, statuses, latencies };
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}
