import http from 'node:http';
import zlib from 'node:zlib';
import t from 'tap';
import { patrolEtag } from '../../server/domain/patrols/etag.js';
import { bulkInsertPatrolTypes } from '../helpers/bulk-catalog.js';
import { TYPES, createType, send } from '../helpers/catalog.js';
import { dialect, startTestServer, type TestServer } from '../helpers/server.js';

interface Raw {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The bytes as they came over the wire (not decoded). */
  body: Buffer;
}

/** A request whose body is read as sent (fetch would decode it and add its own Accept-Encoding). */
function raw(s: TestServer, path: string, headers: Record<string, string>, method = 'GET', body?: string): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const request = http.request(s.url + path, { method, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body: Buffer.concat(chunks) }));
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end(body);
  });
}

const decode = (r: Raw) => {
  const coding = r.headers['content-encoding'];
  const bytes = coding === 'gzip' ? zlib.gunzipSync(r.body) : coding === 'br' ? zlib.brotliDecompressSync(r.body) : r.body;
  return JSON.parse(bytes.toString('utf8'));
};
const varies = (r: Raw) => /(^|,)\s*accept-encoding\s*(,|$)/i.test(String(r.headers.vary ?? ''));

t.test(`response compression (${dialect})`, async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const token = (await s.login()).access_token;
  const auth = { Authorization: `Bearer ${token}` };
  // 3,000 types with their schemas: a list of several MB of JSON.
  await bulkInsertPatrolTypes(s.server.runtime.database.knex, 3000);
  const big = `${TYPES}?include_schema=true`;

  await t.test('gzip and br: smaller, the same JSON, coded ETags, Vary', async (t) => {
    const plain = await raw(s, big, { ...auth, 'Accept-Encoding': 'identity' });
    t.equal(plain.status, 200);
    t.ok(plain.body.length > 3_000_000, `a large body (${plain.body.length} bytes)`);
    t.equal(plain.headers['content-encoding'], undefined);
    t.ok(varies(plain), 'Vary: Accept-Encoding on the uncompressed answer too');
    const tag = plain.headers.etag!;
    t.match(tag, /^"[^"]+"$/, 'a strong ETag');
    const list = decode(plain);
    t.equal(list.length, 3000);
    for (const coding of ['gzip', 'br'] as const) {
      const coded = await raw(s, big, { ...auth, 'Accept-Encoding': coding });
      t.equal(coded.status, 200);
      t.equal(coded.headers['content-encoding'], coding, coding);
      t.ok(coded.body.length * 5 < plain.body.length, `${coding}: ${coded.body.length} bytes for ${plain.body.length}`);
      t.equal(Number(coded.headers['content-length']), coded.body.length, 'Content-Length is the coded length');
      t.match(coded.headers['content-type'], /^application\/json/, 'the type is kept');
      t.same(decode(coded), list, `${coding}: decodes to the same JSON`);
      t.equal(coded.headers.etag, `${tag.slice(0, -1)}-${coding}"`, 'the ETag names the coding');
      t.ok(varies(coded));
    }
  });

  await t.test('Accept-Encoding: q-values, q=0 and identity', async (t) => {
    const cases: Array<[string | null, string | undefined]> = [
      [null, undefined],
      ['identity', undefined],
      ['gzip;q=0, br;q=0', undefined],
      ['*;q=0', undefined],
      ['gzip, deflate', 'gzip'],
      ['gzip;q=1, br;q=0.5', 'gzip'],
      ['br;q=0.8, gzip;q=0.5', 'br'],
      ['br, gzip', 'br'],
      ['gzip;q=0, *', 'br'],
      ['br;q=0, *;q=0.1', 'gzip'],
    ];
    for (const [header, expected] of cases) {
      const r = await raw(s, big, header === null ? auth : { ...auth, 'Accept-Encoding': header });
      t.equal(r.headers['content-encoding'], expected, `Accept-Encoding ${JSON.stringify(header)} → ${expected ?? 'identity'}`);
      t.ok(varies(r), 'Vary');
      t.equal(decode(r).length, 3000);
    }
  });

  await t.test('small bodies go uncompressed, with Vary', async (t) => {
    await createType(s, token, { value: 'small', display: 'Small' });
    const r = await raw(s, `${TYPES}/small`, { ...auth, 'Accept-Encoding': 'gzip, br' });
    t.equal(r.status, 200);
    t.ok(r.body.length <= 1024, `small (${r.body.length} bytes)`);
    t.equal(r.headers['content-encoding'], undefined, 'not compressed');
    t.match(r.headers.etag, /^"[^"]+"$/, 'a strong ETag');
    t.notMatch(r.headers.etag, /-(gzip|br)"$/, 'its ETag names no coding');
    t.equal(decode(r).value, 'small');
    t.ok(varies(r));
    const error = await raw(s, `${TYPES}/absent`, { ...auth, 'Accept-Encoding': 'gzip' });
    t.equal(error.status, 404);
    t.equal(error.headers['content-encoding'], undefined, 'a small error body neither');
    const head = await raw(s, big, { ...auth, 'Accept-Encoding': 'gzip' }, 'HEAD');
    t.equal(head.status, 200);
    t.equal(head.headers['content-encoding'], undefined, 'HEAD: never coded');
  });

  await t.test('304 for a coded ETag (fast path and Koa path), repeating it', async (t) => {
    const gz = await raw(s, big, { ...auth, 'Accept-Encoding': 'gzip' });
    const tag = gz.headers.etag!;
    t.match(tag, /-gzip"$/);
    const again = await raw(s, big, { ...auth, 'Accept-Encoding': 'gzip', 'If-None-Match': tag });
    t.equal(again.status, 304, 'the fast path answers 304 to the -gzip tag');
    t.equal(again.headers.etag, tag, 'and repeats the coded tag');
    t.ok(varies(again));
    t.equal(again.body.length, 0);
    const plainTag = tag.replace(/-gzip"$/, '"');
    const plain = await raw(s, big, { ...auth, 'Accept-Encoding': 'gzip', 'If-None-Match': plainTag });
    t.equal(plain.status, 304, 'the uncoded tag still revalidates');
    t.equal(plain.headers.etag, plainTag);
    const br = await raw(s, big, { ...auth, 'If-None-Match': tag.replace(/-gzip"$/, '-br"') });
    t.equal(br.status, 304, 'a -br tag too');
    // A HEAD goes through Koa (the fast path takes GET only), where answerConditionally decides.
    const head = await raw(s, big, { ...auth, 'If-None-Match': tag }, 'HEAD');
    t.equal(head.status, 304, 'the Koa path answers 304 to the -gzip tag');
    t.equal(head.headers.etag, tag);
    const stale = await raw(s, big, { ...auth, 'Accept-Encoding': 'gzip', 'If-None-Match': '"stale-gzip"' });
    t.equal(stale.status, 200, 'a stale coded tag is a full answer');
  });

  await t.test('If-Match with a -gzip ETag on a PATCH of an event and of a patrol', async (t) => {
    await createType(s, token, { value: 'foot', display: 'Foot' });
    const typeCreated = await s.json('/api/v2.0/activity/eventtypes', send('POST', { value: 'sighting', display: 'Sighting' }, token));
    t.equal(typeCreated.status, 201);
    const event = (await s.json('/api/v1.0/activity/events', send('POST', { event_type: 'sighting', event_details: {}, title: 'x'.repeat(250) }, token))).body;
    const path = `/api/v1.0/activity/event/${event.id}`;
    const read = await raw(s, path, { ...auth, 'Accept-Encoding': 'gzip' });
    t.equal(read.headers['content-encoding'], 'gzip', 'the event came compressed');
    const tag = read.headers.etag!;
    t.match(tag, /-gzip"$/);
    const notModified = await raw(s, path, { ...auth, 'Accept-Encoding': 'gzip', 'If-None-Match': tag });
    t.equal(notModified.status, 304, 'GET with the coded tag: 304 (Koa path)');
    t.equal(notModified.headers.etag, tag);
    const patch = (p: string, body: unknown, ifMatch: string) => s.json(p, { ...send('PATCH', body, token), headers: { 'Content-Type': 'application/json', 'If-Match': ifMatch } });
    t.equal((await patch(path, { title: 'y'.repeat(250) }, tag)).status, 200, 'If-Match with the -gzip tag is accepted');
    t.equal((await patch(path, { title: 'z' }, tag)).status, 412, 'and the same tag is stale afterwards');

    const patrol = await s.json('/api/v1.0/activity/patrols', send('POST', { title: 'p'.repeat(250), patrol_segments: [{ patrol_type: 'foot' }] }, token));
    t.equal(patrol.status, 201);
    const patrolPath = `/api/v1.0/activity/patrols/${patrol.body.id}`;
    const readPatrol = await raw(s, patrolPath, { ...auth, 'Accept-Encoding': 'br' });
    t.equal(readPatrol.headers['content-encoding'], 'br');
    t.equal(readPatrol.headers.etag, undefined, 'a patrol carries no ETag (rule 8), compressed or not');
    // Older CLIs queued the coded version tag issue 16's servers sent: still honoured.
    const { repos } = s.server.runtime.store;
    const tenantId = (await repos.tenants.findByName('default'))!.id;
    const version = async () => patrolEtag((await repos.patrols.findPatrol(tenantId, patrol.body.id))!, await repos.patrols.segmentsOf(tenantId, [patrol.body.id]));
    const gzipTag = (await version()).replace(/"$/, '-gzip"');
    t.equal((await patch(patrolPath, { title: 'Renamed' }, gzipTag)).status, 200, 'a patrol PATCH with a -gzip tag');
    t.equal((await patch(patrolPath, { title: 'Again' }, gzipTag)).status, 412, 'stale afterwards');
    t.equal((await patch(patrolPath, { title: 'Weak' }, `W/${await version()}`)).status, 412, 'weak tags still never match If-Match');
  });

  // NOTE: stored files get a sniffed type (JSON text is application/octet-stream); a download of a
  // text type, streamed or as an attachment, is covered by compress-unit.test.ts.
  await t.test('file downloads are never compressed', async (t) => {
    const event = (await s.json('/api/v1.0/activity/events', send('POST', { event_type: 'sighting', event_details: {} }, token))).body;
    const text = JSON.stringify(Array.from({ length: 2000 }, (_, i) => ({ row: i, text: 'compressible' })));
    const form = new FormData();
    form.append('filecontent.file', new Blob([text], { type: 'application/json' }), 'rows.json');
    const uploaded = await s.json(`/api/v1.0/activity/event/${event.id}/files/`, { method: 'POST', body: form, token });
    t.equal(uploaded.status, 201, JSON.stringify(uploaded.body));
    const content = `/api/v1.0/activity/event/${event.id}/file/${uploaded.body.id}/content`;
    const whole = await raw(s, content, { ...auth, 'Accept-Encoding': 'gzip, br' });
    t.equal(whole.status, 200);
    t.equal(whole.headers['content-encoding'], undefined, 'the whole file as stored');
    t.equal(whole.body.toString('utf8'), text);
    const part = await raw(s, content, { ...auth, 'Accept-Encoding': 'gzip, br', Range: 'bytes=10-4009' });
    t.equal(part.status, 206);
    t.equal(part.headers['content-encoding'], undefined, 'a range as stored');
    t.equal(part.body.toString('utf8'), text.slice(10, 4010));
  });
});
