import http from 'node:http';
import t from 'tap';
import { routeTable } from '../../server/http/routes/index.js';
import { dialect, startTestServer, type TestServer } from '../helpers/server.js';
import { sampleSchema, send } from '../helpers/catalog.js';

// Issue 13 item 11: extreme numbers on every paginated route, extreme numbers in bodies, and
// malformed Host headers are 4xx with the contract's error body, never a 500.

/** A raw GET with any Host header (fetch would not send a malformed one). */
function rawGet(s: TestServer, path: string, token: string, host: string): Promise<{ status: number; body: any }> {
  const { hostname, port } = new URL(s.url);
  return new Promise((resolve, reject) => {
    const request = http.request({ host: hostname, port, path, method: 'GET', headers: { Host: host, Authorization: `Bearer ${token}` }, setHost: false }, (response) => {
      let text = '';
      response.on('data', (chunk) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text ? JSON.parse(text) : undefined }));
    });
    request.on('error', reject);
    request.end();
  });
}

t.test(`bounds on numbers and URL building (${dialect})`, async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const token = (await s.login()).access_token;
  await s.json('/api/v2.0/choices', send('POST', { field: 'species', value: 'lion' }, token));
  await s.json('/api/v1.0/activity/patrols/types', send('POST', { value: 'fence-type', display: 'Fence', schema: sampleSchema('notes', '/api/v2.0/schemas/choices.json?field=species') }, token));
  await s.json('/api/v2.0/activity/eventtypes', send('POST', { value: 'sighting', display: 'Sighting', schema: sampleSchema('notes', '/api/v2.0/schemas/choices.json?field=species') }, token));
  const patrol = (await s.json('/api/v1.0/activity/patrols', send('POST', { title: 'Bounds', patrol_segments: [{}] }, token))).body;
  const segmentId = patrol.patrol_segments[0].id as string;
  const fill = (path: string) =>
    path.replace(/:([a-z_]+)/gi, (_match, name: string) => (path.includes('/segments/') ? segmentId : path.includes('eventtypes') ? 'sighting' : path.includes('/patrols/types') ? 'fence-type' : name === 'id' ? patrol.id : name));
  const paginated = routeTable(s.server.runtime.services).filter((route) => route.method === 'GET' && (route.schema.query as { properties?: Record<string, unknown> } | undefined)?.properties?.page);
  t.ok(paginated.length >= 8, `${paginated.length} paginated routes`);

  await t.test('every paginated route: extreme page and page_size', async (t) => {
    const cases: Array<[string, number[]]> = [
      ['page=9007199254740991&page_size=4000', [404]],
      ['page=99999999999999999999999999&page_size=4000', [404]],
      ['page=250001&page_size=4000', [404]],
      ['page=250002&page_size=4000', [404]],
      ['page=1&page_size=9007199254740991', [200]],
      ['page=1&page_size=99999999999999999999999999', [200]],
      ['page=0', [400]],
      ['page=-1', [400]],
      ['page=1.5', [400]],
      ['page=1e3', [400]],
      ['page_size=0', [400]],
      ['page_size=0x10', [400]],
    ];
    for (const route of paginated) {
      const path = fill(route.paths[0]!);
      const baseline = await s.json(path, { token });
      t.equal(baseline.status, 200, `${route.name} ${path}: baseline`);
      for (const [query, statuses] of cases) {
        const response = await s.json(`${path}?${query}`, { token });
        t.ok(statuses.includes(response.status), `${route.name} ?${query}: ${response.status}`);
        if (response.status >= 400) t.equal(typeof (response.body as any)?.status?.detail, 'string', `${route.name} ?${query}: the error body`);
      }
    }
  });

  await t.test('numbers in bodies: out of range is 400, never 500', async (t) => {
    const cases: Array<[string, string, unknown]> = [
      ['POST', '/api/v2.0/choices', { field: 'big', value: 'a', ordernum: 1.7976931348623157e308 }],
      ['POST', '/api/v2.0/choices', { field: 'big', value: 'b', ordernum: -1.7976931348623157e308 }],
      ['POST', '/api/v1.0/activity/patrols', { priority: 9007199254740993 }],
      ['POST', '/api/v1.0/activity/patrols', { patrol_segments: [{ start_location: { latitude: 1e308, longitude: -1e308 } }] }],
      ['POST', '/api/v1.0/activity/patrols', { patrol_segments: [{ time_range: { start_time: '+275760-09-13T00:00:00.000Z' } }] }],
      ['POST', '/api/v1.0/activity/events', { event_type: 'sighting', priority: 2 ** 63, event_details: {} }],
      ['POST', '/api/v1.0/activity/events', { event_type: 'sighting', location: { latitude: 1e308, longitude: 0 }, event_details: {} }],
      ['POST', '/api/v1.0/activity/patrols/types', { value: 'huge-priority', display: 'x', default_priority: 9007199254740993 }],
      ['POST', '/api/v2.0/activity/eventtypes', { value: 'huge-priority', display: 'x', default_priority: -9007199254740993 }],
      ['POST', `/api/v1.0/activity/patrols/types/fence-type/rank`, { before_key: 9007199254740993 }],
    ];
    for (const [method, path, body] of cases) {
      const response = await s.json(path, send(method, body, token));
      t.ok(response.status < 500, `${method} ${path} ${JSON.stringify(body).slice(0, 80)}: ${response.status}`);
    }
    const form = new FormData();
    form.append('filecontent.file', new Blob([Buffer.from('x')]), 'x.txt');
    form.append('ordernum', '1e308');
    t.equal((await s.json(`/api/v1.0/activity/patrols/${patrol.id}/files`, { method: 'POST', body: form, token })).status, 400, 'a file ordernum out of range');
    const observations = await s.json('/api/v1.0/observations?since=%2B275760-09-13T00:00:00.000Z&until=-271821-04-20T00:00:00.000Z', { token });
    t.ok(observations.status < 500, `extreme dates on observations: ${observations.status}`);
  });

  await t.test('a malformed Host is 400 wherever absolute URLs are built; odd valid ones work', async (t) => {
    const paths = [
      '/api/v1.0/activity/patrols?page_size=1',
      '/v2.0/schemas/choices.json?field=species',
      `/api/v1.0/activity/patrols/${patrol.id}`,
      '/api/v1.0/activity/patrols/types',
      '/.well-known/oauth-authorization-server',
    ];
    for (const host of ['[', 'a b', 'exa mple.org', 'example.org:99999', 'example.org:', '"><script>', 'a/b', '[::1']) {
      for (const path of paths) {
        const response = await rawGet(s, path, token, host);
        t.equal(response.status, 400, `Host ${JSON.stringify(host)} on ${path}`);
        t.match(response.body, { status: { code: 400 }, Host: [{ code: 'invalid_host' }] });
      }
    }
    // Pre-rendering resolves choice references by path and builds no URL from the request, so
    // its answer does not depend on the Host header at all (CONTRACT §11).
    for (const host of ['[', 'a b', '"><script>']) {
      for (const path of ['/api/v1.0/activity/patrols/types/fence-type/schema?pre_render=true', '/api/v2.0/activity/eventtypes/sighting/schema?pre_render=true']) {
        t.equal((await rawGet(s, path, token, host)).status, 200, `Host ${JSON.stringify(host)} on ${path}: no URL built, no header read`);
      }
    }
    for (const host of ['example.org', 'example.org:8080', '[::1]:8000', '10.0.0.1', 'localhost']) {
      const response = await rawGet(s, '/api/v1.0/activity/patrols?page_size=1', token, host);
      t.equal(response.status, 200, `Host ${host}`);
    }
  });
});
