import t from 'tap';
import { routeTable } from '../../server/http/routes/index.js';
import { dialect, startTestServer } from '../helpers/server.js';
import { sampleSchema, send } from '../helpers/catalog.js';

/**
 * Issue 24, finding 4, "check every such map": names of Object.prototype's members, sent
 * wherever a client chooses a name (a query parameter's value and name, a JSON property at the
 * top and nested in the fields that hold objects, a form field), on every route of the table.
 * `sort_by=constructor`, a form field `__proto__` at /oauth2/token/ and a body property
 * `constructor` were each a 500 before. Never a 5xx; every 4xx has the contract's body.
 */
const NAMES = ['constructor', '__proto__', 'toString', 'valueOf', 'hasOwnProperty', 'isPrototypeOf', '__defineGetter__'];
const NESTED = ['event_details', 'schema', 'json', 'ui', 'additional', 'location', 'filter', 'time_range', 'patrol_segments', 'notes', 'event_types'];

t.test(`names of Object.prototype members are never a 5xx, on every route (${dialect})`, async (t) => {
  const s = await startTestServer(t, { env: { FIELDOPS_THROTTLE_PER_ADDRESS: '100000', FIELDOPS_THROTTLE_PER_USERNAME: '10000' } });
  if (!s) return;
  const token = (await s.login()).access_token;
  await s.json('/api/v1.0/activity/patrols/types', send('POST', { value: 'proto-type', display: 'Proto', schema: sampleSchema() }, token));
  const patrol = (await s.json('/api/v1.0/activity/patrols', send('POST', { title: 'Proto', patrol_segments: [{}], notes: [{ text: 'n' }] }, token))).body;
  const known = [patrol.id as string, patrol.patrol_segments[0].id as string, patrol.notes[0].id as string, 'proto-type'];
  const bag = Object.fromEntries(NAMES.map((name) => [name, name]));
  const bodies: Array<{ type: string; body: string }> = [
    // JSON.parse makes `__proto__` an own property, as a client's body would.
    { type: 'application/json', body: `{${NAMES.map((name) => `"${name}": 1`).join(', ')}}` },
    { type: 'application/json', body: JSON.stringify(Object.fromEntries(NESTED.map((field) => [field, bag]))) },
    { type: 'application/json', body: `[{"__proto__": {"constructor": 1}, "manufacturer_id": "constructor", "recorded_at": "toString", "location": {"__proto__": 1}}]` },
    { type: 'application/x-www-form-urlencoded', body: `${NAMES.map((name) => `${name}=${name}`).join('&')}&grant_type=password&client_id=fieldops-cli` },
  ];
  const failures: string[] = [];
  let requests = 0;
  for (const route of routeTable(s.server.runtime.services)) {
    for (const routePath of route.paths) {
      for (const param of [...known.slice(0, 1), 'constructor', '__proto__']) {
        const path = routePath.replace(/:([A-Za-z_]+)/g, () => encodeURIComponent(param));
        const queries = NAMES.flatMap((name) => [`${name}=1`, `sort_by=${name}`, `ordering=${name}`, `filter=${encodeURIComponent(JSON.stringify({ [name]: name, event_type: [name] }))}`]);
        const cases = route.method === 'GET' ? queries.map((query) => ({ query, body: undefined })) : bodies.map((body) => ({ query: 'include_schema=constructor', body }));
        for (const { query, body } of cases) {
          requests++;
          const response = await fetch(`${s.url}${path}?${query}`, {
            method: route.method,
            headers: { Authorization: `Bearer ${token}`, ...(body ? { 'Content-Type': body.type } : {}) },
            body: body?.body,
          });
          const text = await response.text();
          if (response.status >= 500) failures.push(`${route.method} ${path}?${query} ${body?.body.slice(0, 80) ?? ''} → ${response.status}`);
          else if (response.status >= 400) {
            const parsed = JSON.parse(text) as { status?: { code: number }; error?: string };
            if (typeof parsed.error !== 'string' && parsed.status?.code !== response.status) failures.push(`${route.method} ${path}: ${response.status} without the error body`);
          }
        }
      }
    }
  }
  t.same(failures, [], `no 5xx and the contract's body for every 4xx (${requests} requests)`);
  t.ok(requests > 500, 'every route was tried');
});
