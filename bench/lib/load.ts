import { Pool } from 'undici';

export interface LoadResult {
  requests: number;
  seconds: number;
  perSecond: number;
  statuses: Record<number, number>;
  bytes: number;
}

/**
 * Closed-loop load: `connections` concurrent callers, each sending the next request as soon as
 * the previous answer is consumed, for `seconds`. Every body is read to the end.
 */
export async function runLoad(origin: string, path: string, headers: Record<string, string>, options: { connections: number; seconds: number }): Promise<LoadResult> {
  const pool = new Pool(origin, { connections: options.connections, pipelining: 1 });
  const statuses: Record<number, number> = {};
  let requests = 0;
  let bytes = 0;
  const started = process.hrtime.bigint();
  const deadline = Date.now() + options.seconds * 1000;
  const worker = async () => {
    while (Date.now() < deadline) {
      const response = await pool.request({ method: 'GET', path, headers });
      const body = await response.body.arrayBuffer();
      bytes += body.byteLength;
      statuses[response.statusCode] = (statuses[response.statusCode] ?? 0) + 1;
      requests++;
    }
  };
  await Promise.all(Array.from({ length: options.connections }, worker));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  await pool.close();
  return { requests, seconds, perSecond: requests / seconds, statuses, bytes };
}
