/**
 * An HTTP proxy that calls `onRequest` as each request arrives and `onResponse` after the server
 * answered but before the answer is passed on, so a test can kill the client at either point:
 * before the server saw a request, or after the server committed it and before the client knew.
 * `onRequest` may also return a promise: the request is held (the client waits, as on a slow
 * link) until it settles, then forwarded. Counts requests by method and path; `onResponse` sees
 * the answer's body too (tokens a test must check were revoked).
 */
import http from 'node:http';
import type { Test } from 'tap';
import { listenForTest } from '../helpers/test-listener.js';

export interface KillProxy {
  url: string;
  requests: Array<{ method: string; path: string; status: number }>;
  onRequest: ((index: number, method: string, path: string) => boolean | void | Promise<void>) | null;
  onResponse: ((index: number, method: string, path: string, status: number, body: Buffer) => boolean | void) | null;
}

export async function startKillProxy(t: Test, target: string): Promise<KillProxy> {
  const upstream = new URL(target);
  const agent = new http.Agent({ keepAlive: true });
  let seen = 0;
  const proxy: KillProxy = { url: '', requests: [], onRequest: null, onResponse: null };
  const server = http.createServer(async (request, response) => {
    const index = ++seen;
    const method = request.method ?? '';
    const path = request.url ?? '';
    // Returning true from a hook drops the exchange (the client is being killed).
    const hook = proxy.onRequest?.(index, method, path);
    if (hook === true) {
      request.resume();
      return;
    }
    if (hook instanceof Promise) {
      await hook;
      if (response.destroyed || request.destroyed) return;
    }
    const forward = http.request({ host: upstream.hostname, port: upstream.port, method, path, headers: request.headers, agent }, async (answer) => {
      const chunks: Buffer[] = [];
      for await (const chunk of answer) chunks.push(chunk as Buffer);
      const status = answer.statusCode ?? 0;
      proxy.requests.push({ method, path, status });
      const body = Buffer.concat(chunks);
      if (proxy.onResponse?.(index, method, path, status, body)) return;
      response.writeHead(status, answer.headers);
      response.end(body);
    });
    forward.on('error', () => response.destroy());
    request.pipe(forward);
  });
  proxy.url = await listenForTest(t, server, agent);
  return proxy;
}
