/**
 * An HTTP proxy in front of a real server for the feed's end-to-end tests: `noFeed` answers 404
 * to everything under /api/fieldops/v1/sync/ (an older server); `limit` rewrites the page size a
 * client asks for (small pages out of a small tenant); `holdAfter` answers that many feed pages
 * and then holds the next request forever (a stalled link), resolving `held` when it arrives.
 *
 * For the kill tests (kill-points.test.ts): `holdMidBody` answers that many feed pages, then
 * sends the next page's head and half its body and never the rest (a link that dies mid-download);
 * `holdPath` holds every request under a path prefix once `after` of them were answered (a
 * repair's /sync/ranges or /sync/records). Each hold resolves `held` (the first only) and the
 * promise of `nextHold()`. Every 200 answer of the feed that was written out whole is logged in
 * `answers`, tagged with the `epoch` the test set before starting the client that asked.
 */
import http from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { Test } from 'tap';
import { listenForTest } from '../../helpers/test-listener.js';

const SYNC = '/api/fieldops/v1/sync/';

/** One feed answer the client got whole: the records it carried (a ranges page carries none). */
export interface FeedAnswer {
  epoch: number;
  endpoint: 'changes' | 'ranges' | 'records' | 'other';
  /** `changes`: the cursor asked with and the page's own. */
  asked: string | null;
  cursor: string | null;
  records: Array<{ kind: string; id: string }>;
}

export interface FeedProxy {
  url: string;
  noFeed: boolean;
  limit: number | null;
  holdAfter: number | null;
  holdMidBody: number | null;
  holdPath: { prefix: string; after: number } | null;
  /** Feed pages answered (POST …/sync/changes with 200). */
  pages: number;
  /** Feed pages written out whole to the client (a page cut by a kill is answered, not written). */
  written: number;
  held: Promise<void>;
  epoch: number;
  answers: FeedAnswer[];
  /** Answered requests per path prefix (any status), for `holdPath.after`. */
  answered(prefix: string): number;
  nextHold(): Promise<void>;
  /** Resolves once `pages` pages were written out whole to the client. */
  pagesWritten(pages: number): Promise<void>;
}

export async function startFeedProxy(t: Test, target: string): Promise<FeedProxy> {
  const upstream = new URL(target);
  const agent = new http.Agent({ keepAlive: true });
  let release: () => void = () => {};
  const holdWaiters: Array<() => void> = [];
  const pageWaiters: Array<{ pages: number; resolve: () => void }> = [];
  const answeredPaths: string[] = [];
  const hold = () => {
    release();
    for (const resolve of holdWaiters.splice(0)) resolve();
  };
  const proxy: FeedProxy = {
    url: '',
    noFeed: false,
    limit: null,
    holdAfter: null,
    holdMidBody: null,
    holdPath: null,
    pages: 0,
    written: 0,
    held: new Promise<void>((resolve) => (release = resolve)),
    epoch: 0,
    answers: [],
    answered: (prefix) => answeredPaths.filter((path) => path.startsWith(prefix)).length,
    nextHold: () => new Promise<void>((resolve) => holdWaiters.push(resolve)),
    pagesWritten: (pages) => new Promise<void>((resolve) => (proxy.written >= pages ? resolve() : pageWaiters.push({ pages, resolve }))),
  };
  const server = http.createServer(async (request, response) => {
    const path = request.url ?? '';
    const epoch = proxy.epoch;
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    let body = Buffer.concat(chunks);
    const feed = path.startsWith(SYNC);
    if (feed && proxy.noFeed) {
      response.writeHead(404, { 'content-type': 'application/json' });
      return response.end(JSON.stringify({ status: { code: 404, message: 'Not Found', detail: 'Not found.' } }));
    }
    const changes = path.startsWith(`${SYNC}changes`);
    const heldHere = proxy.holdPath !== null && path.startsWith(proxy.holdPath.prefix) && proxy.answered(proxy.holdPath.prefix) >= proxy.holdPath.after;
    if (heldHere || (changes && proxy.holdAfter !== null && proxy.pages >= proxy.holdAfter)) {
      hold();
      return; // never answered: the client waits until it is killed
    }
    const midBody = changes && proxy.holdMidBody !== null && proxy.pages >= proxy.holdMidBody;
    if (changes && proxy.limit !== null) body = Buffer.from(JSON.stringify({ ...JSON.parse(body.toString()), limit: proxy.limit }));
    const headers = { ...request.headers, 'content-length': String(body.length) };
    const forward = http.request({ host: upstream.hostname, port: upstream.port, method: request.method, path, headers, agent }, async (answer) => {
      const parts: Buffer[] = [];
      for await (const chunk of answer) parts.push(chunk as Buffer);
      const whole = Buffer.concat(parts);
      response.writeHead(answer.statusCode ?? 502, answer.headers);
      if (midBody) {
        // The head (with the whole Content-Length) and half the body; the rest never comes.
        response.write(whole.subarray(0, Math.floor(whole.length / 2)), () => hold());
        return;
      }
      if (changes && answer.statusCode === 200) proxy.pages++;
      answeredPaths.push(path);
      response.end(whole, () => {
        if (feed && answer.statusCode === 200) proxy.answers.push(logged(epoch, path, body, answer.headers['content-encoding'], whole));
        if (changes && answer.statusCode === 200) {
          proxy.written++;
          for (const waiter of [...pageWaiters]) if (proxy.written >= waiter.pages) pageWaiters.splice(pageWaiters.indexOf(waiter), 1)[0]!.resolve();
        }
      });
    });
    forward.on('error', () => response.destroy());
    forward.end(body);
  });
  proxy.url = await listenForTest(t, server, agent);
  return proxy;
}

function logged(epoch: number, path: string, request: Buffer, coding: string | undefined, body: Buffer): FeedAnswer {
  const endpoint = (['changes', 'ranges', 'records'] as const).find((name) => path.startsWith(`${SYNC}${name}`)) ?? 'other';
  if (endpoint === 'other') return { epoch, endpoint, asked: null, cursor: null, records: [] };
  const text = coding === 'br' ? brotliDecompressSync(body) : coding === 'gzip' ? gunzipSync(body) : body;
  const answer = JSON.parse(text.toString()) as { cursor?: string; changes?: Array<{ kind: string; id: string }> };
  const asked = endpoint === 'changes' ? ((JSON.parse(request.toString()) as { cursor: string | null }).cursor ?? null) : null;
  return { epoch, endpoint, asked, cursor: answer.cursor ?? null, records: (answer.changes ?? []).map(({ kind, id }) => ({ kind, id })) };
}
