/**
 * An HTTP proxy in front of a real `fieldops serve` that makes a feed pull slow and busy: it
 * rewrites the page size a client asks for (`limit`), and before handing back feed page n (1, 2,
 * …; POST …/sync/changes answered 200) it waits `delayMs` and awaits `beforeAnswer(n)`, where a
 * test writes on the server between the pages of one pull. Everything else passes through.
 */
import http from 'node:http';
import type { Test } from 'tap';
import { listenForTest } from './test-listener.js';

export interface PagingProxy {
  url: string;
  limit: number | null;
  delayMs: number;
  /** Runs after the server answered page n and before the client gets it. */
  beforeAnswer: ((page: number) => Promise<void>) | null;
  /** Feed pages answered so far. */
  pages: number;
}

export async function startPagingProxy(t: Test, target: string): Promise<PagingProxy> {
  const upstream = new URL(target);
  const agent = new http.Agent({ keepAlive: true });
  const proxy: PagingProxy = { url: '', limit: null, delayMs: 0, beforeAnswer: null, pages: 0 };
  const server = http.createServer(async (request, response) => {
    const path = request.url ?? '';
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    let body = Buffer.concat(chunks);
    const changes = path.startsWith('/api/fieldops/v1/sync/changes');
    if (changes && proxy.limit !== null) body = Buffer.from(JSON.stringify({ ...JSON.parse(body.toString()), limit: proxy.limit }));
    const headers = { ...request.headers, 'content-length': String(body.length) };
    const forward = http.request({ host: upstream.hostname, port: upstream.port, method: request.method, path, headers, agent }, async (answer) => {
      const parts: Buffer[] = [];
      for await (const chunk of answer) parts.push(chunk as Buffer);
      if (changes && answer.statusCode === 200) {
        const page = ++proxy.pages;
        if (proxy.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, proxy.delayMs));
        try {
          await proxy.beforeAnswer?.(page);
        } catch (error) {
          // A failed write between pages fails the test through the proxy's answer.
          response.writeHead(599, { 'content-type': 'text/plain' });
          return response.end(`paging proxy: ${(error as Error).message}`);
        }
      }
      response.writeHead(answer.statusCode ?? 502, answer.headers);
      response.end(Buffer.concat(parts));
    });
    forward.on('error', () => response.destroy());
    forward.end(body);
  });
  proxy.url = await listenForTest(t, server, agent);
  return proxy;
}
