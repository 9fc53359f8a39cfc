/**
 * An HTTP proxy in front of a real server for the feed's end-to-end tests: `noFeed` answers 404
 * to everything under /api/fieldops/v1/sync/ (an older server); `limit` rewrites the page size a
 * client asks for (small pages out of a small tenant); `holdAfter` answers that many feed pages
 * and then holds the next request forever (a stalled link), resolving `held` when it arrives.
 */
import http from 'node:http';
import type { Test } from 'tap';
import { listenForTest } from '../../helpers/test-listener.js';

export interface FeedProxy {
  url: string;
  noFeed: boolean;
  limit: number | null;
  holdAfter: number | null;
  /** Feed pages answered (POST …/sync/changes with 200). */
  pages: number;
  held: Promise<void>;
}

export async function startFeedProxy(t: Test, target: string): Promise<FeedProxy> {
  const upstream = new URL(target);
  const agent = new http.Agent({ keepAlive: true });
  let release: () => void = () => {};
  const proxy: FeedProxy = { url: '', noFeed: false, limit: null, holdAfter: null, pages: 0, held: new Promise<void>((resolve) => (release = resolve)) };
  const server = http.createServer(async (request, response) => {
    const path = request.url ?? '';
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    let body = Buffer.concat(chunks);
    const feed = path.startsWith('/api/fieldops/v1/sync/');
    if (feed && proxy.noFeed) {
      response.writeHead(404, { 'content-type': 'application/json' });
      return response.end(JSON.stringify({ status: { code: 404, message: 'Not Found', detail: 'Not found.' } }));
    }
    const changes = path.startsWith('/api/fieldops/v1/sync/changes');
    if (changes && proxy.holdAfter !== null && proxy.pages >= proxy.holdAfter) {
      release();
      return; // never answered: the client waits until it is killed
    }
    if (changes && proxy.limit !== null) body = Buffer.from(JSON.stringify({ ...JSON.parse(body.toString()), limit: proxy.limit }));
    const headers = { ...request.headers, 'content-length': String(body.length) };
    const forward = http.request({ host: upstream.hostname, port: upstream.port, method: request.method, path, headers, agent }, async (answer) => {
      const parts: Buffer[] = [];
      for await (const chunk of answer) parts.push(chunk as Buffer);
      if (changes && answer.statusCode === 200) proxy.pages++;
      response.writeHead(answer.statusCode ?? 502, answer.headers);
      response.end(Buffer.concat(parts));
    });
    forward.on('error', () => response.destroy());
    forward.end(body);
  });
  proxy.url = await listenForTest(t, server, agent);
  return proxy;
}
