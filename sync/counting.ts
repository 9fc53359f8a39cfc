/**
 * A transport decorator that records what went over the wire: one entry per HTTP exchange with
 * its status and body size. The sync report (`requests`, `bytes`) and the benchmark read it; the
 * no-change test asserts on it (every request a 304 with an empty body).
 */
import type { Transport } from './http.js';

export interface Exchange {
  method: string;
  url: string;
  status: number;
  /** Response body bytes as received (after any transfer decoding undici does). */
  bytes: number;
}

export interface WireLog {
  exchanges: Exchange[];
  requests(): number;
  bytes(): number;
}

export function countingTransport(transport: Transport): { transport: Transport; log: WireLog } {
  const exchanges: Exchange[] = [];
  const log: WireLog = {
    exchanges,
    requests: () => exchanges.length,
    bytes: () => exchanges.reduce((sum, e) => sum + e.bytes, 0),
  };
  return {
    log,
    transport: async (request) => {
      const response = await transport(request);
      exchanges.push({ method: request.method, url: request.url, status: response.status, bytes: response.body.byteLength });
      return response;
    },
  };
}
