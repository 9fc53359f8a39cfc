import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import Koa from 'koa';
import t, { type Test } from 'tap';
import { codedEtag, etagForNotModified, negotiateCoding, withoutCoding } from '../../server/http/content-coding.js';
import { etagListMatches, ifMatchSatisfied } from '../../server/http/conditional.js';
import { compressResponses } from '../../server/http/middleware/compress.js';

t.test('Accept-Encoding negotiation', async (t) => {
  const cases: Array<[string | undefined, string | null]> = [
    [undefined, null],
    ['', null],
    ['identity', null],
    ['deflate', null],
    ['gzip', 'gzip'],
    ['x-gzip', 'gzip'],
    ['GZIP;Q=0.5', 'gzip'],
    ['br', 'br'],
    ['gzip, br', 'br'],
    ['gzip;q=1.0, br;q=0.9', 'gzip'],
    ['gzip;q=0.5, br;q=0.5', 'br'],
    ['br;q=0, gzip;q=0', null],
    ['br;q=0, gzip', 'gzip'],
    ['*', 'br'],
    ['*;q=0', null],
    ['*;q=0.2, br;q=0', 'gzip'],
    ['gzip;q=banana', null],
    ['gzip;q=2', null],
    ['gzip' + ' '.repeat(2000), null],
  ];
  for (const [header, expected] of cases) t.equal(negotiateCoding(header), expected, `${JSON.stringify(header)?.slice(0, 40)} → ${expected}`);
});

t.test('coded ETags and the precondition helpers', async (t) => {
  t.equal(codedEtag('"abc"', 'gzip'), '"abc-gzip"');
  t.equal(codedEtag('"abc"', 'br'), '"abc-br"');
  t.equal(codedEtag('W/"abc"', 'gzip'), 'W/"abc"', 'weak tags are left as they are');
  t.equal(withoutCoding('"abc-gzip"'), '"abc"');
  t.equal(withoutCoding('W/"abc-br"'), 'W/"abc"');
  t.equal(withoutCoding('"abc"'), '"abc"');
  t.equal(withoutCoding('"abc-gzipx"'), '"abc-gzipx"');
  t.ok(etagListMatches('"abc-gzip"', '"abc"'), 'If-None-Match: coded tag matches');
  t.ok(etagListMatches('"x", W/"abc-br"', '"abc"'), 'in a list, weak');
  t.notOk(etagListMatches('"abd-gzip"', '"abc"'));
  t.ok(ifMatchSatisfied('"abc-gzip"', '"abc"'), 'If-Match: coded tag names the same version');
  t.ok(ifMatchSatisfied('"abc-br"', '"abc"'));
  t.notOk(ifMatchSatisfied('W/"abc-gzip"', '"abc"'), 'weak never matches If-Match');
  t.notOk(ifMatchSatisfied('"abd-gzip"', '"abc"'));
  t.equal(etagForNotModified('"abc-gzip"', '"abc"'), '"abc-gzip"');
  t.equal(etagForNotModified('"q", "abc-br"', '"abc"'), '"abc-br"');
  t.equal(etagForNotModified('"abc"', '"abc"'), '"abc"');
  t.equal(etagForNotModified('', '"abc"'), '"abc"');
});

/** A Koa app with only the compression step in front of `handler`. */
async function serve(t: Test, handler: Koa.Middleware): Promise<string> {
  const app = new Koa();
  app.use(((ctx: Koa.Context, next: Koa.Next) => ((ctx.state.log = { warn() {} }), next())) as Koa.Middleware);
  app.use(compressResponses({ minBytes: 1024 }) as unknown as Koa.Middleware);
  app.use(handler);
  const server = http.createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function get(url: string, headers: Record<string, string>, method = 'GET'): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    http
      .request(url, { method, headers }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (c: Buffer) => chunks.push(c));
        response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body: Buffer.concat(chunks) }));
      })
      .on('error', reject)
      .end();
  });
}

t.test('what the middleware leaves alone, and a large object body', async (t) => {
  const big = Array.from({ length: 60_000 }, (_, i) => ({ id: i, name: `record ${i}`, tags: ['alpha', 'beta'], at: '2026-11-25T10:00:00Z' }));
  const text = 'x'.repeat(5000);
  const base = await serve(t, async (ctx) => {
    switch (ctx.path) {
      case '/big':
        ctx.set('ETag', '"big"');
        ctx.body = big;
        return;
      case '/problem':
        ctx.status = 400;
        ctx.type = 'application/problem+json';
        ctx.body = JSON.stringify({ detail: text });
        return;
      case '/stream':
        ctx.type = 'text/plain';
        ctx.body = Readable.from([text, text]);
        return;
      case '/coded':
        ctx.type = 'application/json';
        ctx.set('Content-Encoding', 'gzip');
        ctx.body = zlib.gzipSync(JSON.stringify({ text }));
        return;
      case '/binary':
        ctx.type = 'application/octet-stream';
        ctx.body = Buffer.alloc(5000);
        return;
      case '/attachment':
        ctx.type = 'text/csv';
        ctx.set('Content-Disposition', 'attachment; filename="a.csv"');
        ctx.body = text;
        return;
      case '/empty':
        ctx.status = 204;
        return;
      case '/small':
        ctx.body = { small: true };
        return;
      case '/weak':
        ctx.set('ETag', 'W/"weak"');
        ctx.body = { text };
        return;
    }
  });
  const r = await get(`${base}/big`, { 'Accept-Encoding': 'br' });
  t.equal(r.headers['content-encoding'], 'br');
  t.ok(r.body.length > 0 && r.body.length < 1_000_000, `${r.body.length} bytes`);
  t.same(JSON.parse(zlib.brotliDecompressSync(r.body).toString('utf8')), big, 'a several-MB object body, br, decodes to the same JSON');
  t.equal(r.headers.etag, '"big-br"');
  const g = await get(`${base}/big`, { 'Accept-Encoding': 'gzip' });
  t.same(JSON.parse(zlib.gunzipSync(g.body).toString('utf8')), big, 'and gzip');
  const problem = await get(`${base}/problem`, { 'Accept-Encoding': 'gzip' });
  t.equal(problem.status, 400);
  t.equal(problem.headers['content-encoding'], 'gzip', 'problem+json is compressed');
  t.match(problem.headers['content-type'], /^application\/problem\+json/);
  t.equal(JSON.parse(zlib.gunzipSync(problem.body).toString('utf8')).detail, text);
  for (const path of ['/stream', '/coded', '/binary', '/attachment']) {
    const left = await get(`${base}${path}`, { 'Accept-Encoding': 'gzip, br' });
    t.equal(left.status, 200, path);
    t.equal(left.headers['content-encoding'], path === '/coded' ? 'gzip' : undefined, `${path}: left as it was`);
  }
  t.equal((await get(`${base}/stream`, { 'Accept-Encoding': 'gzip' })).body.toString(), text + text, 'a stream goes through unchanged');
  t.match((await get(`${base}/stream`, {})).headers.vary, /Accept-Encoding/, 'Vary on a compressible stream');
  t.notOk((await get(`${base}/binary`, {})).headers.vary, 'no Vary on a binary body');
  const empty = await get(`${base}/empty`, { 'Accept-Encoding': 'gzip' });
  t.equal(empty.status, 204);
  t.equal(empty.headers['content-encoding'], undefined);
  const weak = await get(`${base}/weak`, { 'Accept-Encoding': 'gzip' });
  t.equal(weak.headers['content-encoding'], 'gzip');
  t.equal(weak.headers.etag, 'W/"weak"', 'a weak ETag is kept');
  const small = await get(`${base}/small`, { 'Accept-Encoding': 'gzip' });
  t.equal(small.headers['content-encoding'], undefined, 'a small object body is sent as it is');
  t.match(small.headers['content-type'], /^application\/json/);
  t.same(JSON.parse(small.body.toString('utf8')), { small: true });
  t.match(small.headers.vary, /Accept-Encoding/);
  const head = await get(`${base}/big`, { 'Accept-Encoding': 'gzip' }, 'HEAD');
  t.equal(head.headers['content-encoding'], undefined, 'HEAD is never coded');
});
