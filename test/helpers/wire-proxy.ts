/**
 * A small HTTP proxy between the CLI and a test server that records every exchange (status and
 * response body bytes as they crossed the wire) and can misbehave on demand: answer 5xx, delay,
 * trickle bodies out slowly, or stop listening. It observes the CLI from outside, so tests do
 * not have to trust the CLI's own accounting.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Test } from 'tap';

export interface Exchange {
  method: string;
  path: string;
  status: number;
  bytes: number;
  requestHeaders: http.IncomingHttpHeaders;
}

export interface WireProxy {
  url: string;
  exchanges: Exchange[];
  reset(): void;
  /** The next `count` requests get `status` without reaching the server. */
  failNext(count: number, status?: number): void;
  /** Requests whose path matches get `status` (an error body) until cleared with null. */
  override(path: RegExp | null, status?: number): void;
  /** Response bodies are sent in `chunkBytes` pieces, `intervalMs` apart. */
  throttle(options: { chunkBytes: number; intervalMs: number } | null): void;
  close(): Promise<void>;
}

export async function startWireProxy(t: Test, target: string): Promise<WireProxy> {
  const upstream = new URL(target);
  const agent = new http.Agent({ keepAlive: true });
  const exchanges: Exchange[] = [];
  let failures = 0;
  let failStatus = 503;
  let slow: { chunkBytes: number; intervalMs: number } | null = null;
  let overridden: { path: RegExp; status: number } | null = null;

  const server = http.createServer((request, response) => {
    const record = (status: number, bytes: number) => exchanges.push({ method: request.method ?? '', path: request.url ?? '', status, bytes, requestHeaders: request.headers });
    const injected = failures > 0 || (overridden !== null && overridden.path.test(request.url ?? ''));
    if (injected) {
      const status = failures > 0 ? failStatus : overridden!.status;
      if (failures > 0) failures--;
      request.resume();
      const body = JSON.stringify({ status: { code: status, message: http.STATUS_CODES[status], detail: 'injected by the test proxy' } });
      response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      response.end(body);
      record(status, Buffer.byteLength(body));
      return;
    }
    const forward = http.request(
      { host: upstream.hostname, port: upstream.port, method: request.method, path: request.url, headers: request.headers, agent },
      async (answer) => {
        const chunks: Buffer[] = [];
        for await (const chunk of answer) chunks.push(chunk as Buffer);
        const body = Buffer.concat(chunks);
        const headers = { ...answer.headers };
        delete headers['transfer-encoding'];
        if (answer.statusCode !== 304 && answer.statusCode !== 204) headers['content-length'] = String(body.length);
        response.writeHead(answer.statusCode ?? 502, headers);
        record(answer.statusCode ?? 502, body.length);
        if (!slow || body.length === 0) return void response.end(body);
        const { chunkBytes, intervalMs } = slow;
        for (let i = 0; i < body.length && !response.destroyed; i += chunkBytes) {
          response.write(body.subarray(i, i + chunkBytes));
          await new Promise((resolve) => setTimeout(resolve, intervalMs));
        }
        response.end();
      },
    );
    forward.on('error', () => {
      if (!response.headersSent) response.writeHead(502);
      response.end();
    });
    request.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    agent.destroy();
  };
  t.teardown(close);
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    exchanges,
    reset: () => void exchanges.splice(0),
    failNext(count, status = 503) {
      failures = count;
      failStatus = status;
    },
    override(path, status = 404) {
      overridden = path ? { path, status } : null;
    },
    throttle(options) {
      slow = options;
    },
    close,
  };
}
