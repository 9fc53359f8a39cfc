import fc from 'fast-check';
import t from 'tap';
import { routeTable } from '../../server/http/routes/index.js';
import { dialect, startTestServer } from '../helpers/server.js';
import { sampleSchema, send } from '../helpers/catalog.js';

/**
 * Property-based fuzzing of the whole HTTP surface: every route of the table, with generated
 * path parameters, query strings, headers and bodies, valid and hostile. Invariants: never a
 * 5xx; 4xx answers carry the contract's error body (RFC 6749 bodies on OAuth endpoints); a
 * rejected request changes nothing. FUZZ_RUNS sets the number of cases (default 2000).
 * Large and adversarial schemas and event_details are fuzzed in fuzz-schemas.test.ts (own file,
 * so each has the whole per-file time limit).
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 2000);

const hostile = fc.oneof(
  fc.constantFrom('', ' ', '..', '../../etc/passwd', '%2e%2e%2f', "' OR 1=1 --", '"; DROP TABLE users; --', '\u0000', 'null', '[]', '{}', 'true', '-1', '1e309', '9'.repeat(400), '😀'.repeat(50), 'a/b', 'a.b', '00000000-0000-4000-8000-000000000000', 'NaN', '2026-13-45T99:99:99Z'),
  fc.string({ maxLength: 40 }),
  fc.uuid(),
);
const jsonish = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }),
  fc.dictionary(fc.constantFrom('value', 'display', 'schema', 'title', 'text', 'patrol_segments', 'event_type', 'event_details', 'field', 'id', 'before_key', 'priority', 'state', 'location', 'time_range', 'username', 'password', 'event_types', 'dry_run', 'comment', 'manufacturer_id', 'recorded_at', 'lat'), fc.oneof(fc.jsonValue({ maxDepth: 3 }), hostile)),
  fc.array(fc.dictionary(fc.constantFrom('manufacturer_id', 'recorded_at', 'location', 'lat', 'lon'), fc.oneof(fc.jsonValue({ maxDepth: 2 }), hostile)), { maxLength: 5 }),
);
const rawBody = fc.oneof(
  jsonish.map((value) => ({ type: 'application/json', body: JSON.stringify(value) as string | Uint8Array })),
  fc.constantFrom('{"a": 1, "a": 2}', '{"unterminated": ', '\u0000\u0001', '[' .repeat(2000) + ']'.repeat(2000), '{"deep": ' + '{"x": '.repeat(500) + '1' + '}'.repeat(501)).map((body) => ({ type: 'application/json', body: body as string | Uint8Array })),
  fc.uint8Array({ maxLength: 64 }).map((bytes) => ({ type: 'application/json', body: Uint8Array.from([0x7b, 0x22, 0xff, 0xfe, ...bytes]) as string | Uint8Array })),
  fc.string({ maxLength: 60 }).map((text) => ({ type: 'application/x-www-form-urlencoded', body: text as string | Uint8Array })),
  fc.constant({ type: 'text/plain', body: 'hello' as string | Uint8Array }),
);
const query = fc.dictionary(fc.constantFrom('include_inactive', 'include_schema', 'updated_since', 'pre_render', 's_format', 'page', 'page_size', 'filter', 'status', 'exclude_empty_patrols', 'field', 'client_id', 'since', 'until', 'source_id', 'ordering'), hostile, { maxKeys: 3 });

t.test(`fuzzing every route (${dialect}, ${RUNS} cases)`, async (t) => {
  const s = await startTestServer(t, { env: { FIELDOPS_THROTTLE_PER_ADDRESS: '100000', FIELDOPS_THROTTLE_PER_USERNAME: '10000' } });
  if (!s) return;
  const token = (await s.login()).access_token;
  await s.json('/api/v1.0/activity/patrols/types', send('POST', { value: 'fuzz-type', display: 'Fuzz', schema: sampleSchema() }, token));
  const patrol = (await s.json('/api/v1.0/activity/patrols', send('POST', { title: 'Fuzz', patrol_segments: [{}], notes: [{ text: 'n' }] }, token))).body;
  const known = [patrol.id, patrol.patrol_segments[0].id, patrol.notes[0].id, 'fuzz-type'];
  const routes = routeTable(s.server.runtime.services);
  const { knex } = s.server.runtime.database;
  const fingerprint = async () => {
    const tables = ['patrol_types', 'event_types', 'choices', 'patrols', 'patrol_segments', 'patrol_notes', 'patrol_files', 'events', 'users', 'observations', 'catalog_versions', 'event_types_v1', 'event_categories'];
    return JSON.stringify(await Promise.all(tables.map((table) => knex(table).count({ n: '*' }).max({ m: table === 'catalog_versions' ? 'version' : table === 'users' || table === 'observations' || table === 'event_types_v1' || table === 'event_categories' ? 'created_at' : 'updated_at' }).first())));
  };
  const outcomes = new Map<number, number>();
  let rejectedChecked = 0;
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom(...routes),
      fc.oneof(fc.constantFrom(...known), hostile),
      query,
      fc.option(rawBody, { nil: undefined }),
      fc.record({
        auth: fc.oneof({ arbitrary: fc.constant('token'), weight: 8 }, { arbitrary: fc.constantFrom('none', 'garbage'), weight: 2 }),
        ifNoneMatch: fc.oneof({ arbitrary: fc.constant(undefined), weight: 4 }, { arbitrary: hostile, weight: 1 }),
        profile: fc.oneof({ arbitrary: fc.constant(undefined), weight: 9 }, { arbitrary: hostile, weight: 1 }),
      }),
      async (route, param, params, body, headers) => {
        const path = route.paths[Math.abs(param.length) % route.paths.length]!.replace(/:([A-Za-z_]+)/g, () => encodeURIComponent(param));
        const search = new URLSearchParams(Object.entries(params) as Array<[string, string]>).toString();
        const requestHeaders: Record<string, string> = {};
        if (headers.auth === 'token') requestHeaders.Authorization = `Bearer ${token}`;
        if (headers.auth === 'garbage') requestHeaders.Authorization = 'Bearer \u00ff\u00fe';
        if (headers.ifNoneMatch !== undefined) requestHeaders['If-None-Match'] = headers.ifNoneMatch.replace(/[^\x20-\x7e]/g, '');
        if (headers.profile !== undefined) requestHeaders['User-Profile'] = headers.profile.replace(/[^\x20-\x7e]/g, '');
        if (body && route.method !== 'GET') requestHeaders['Content-Type'] = body.type;
        const before = route.method === 'GET' ? null : await fingerprint();
        const response = await fetch(`${s.url}${path}${search ? `?${search}` : ''}`, { method: route.method, headers: requestHeaders, body: route.method === 'GET' ? undefined : body?.body });
        const text = await response.text();
        outcomes.set(response.status, (outcomes.get(response.status) ?? 0) + 1);
        if (response.status >= 500) throw new Error(`${route.method} ${path}?${search} → ${response.status}: ${text.slice(0, 300)}`);
        if (response.status >= 400) {
          const parsed = JSON.parse(text) as { status?: { code: number }; error?: string };
          const oauth = route.name.startsWith('oauth.');
          if (oauth ? typeof parsed.error !== 'string' && parsed.status?.code !== response.status : parsed.status?.code !== response.status) {
            throw new Error(`${route.method} ${path}: ${response.status} without the contract error body: ${text.slice(0, 200)}`);
          }
          if (before !== null) {
            rejectedChecked++;
            const after = await fingerprint();
            if (after !== before) throw new Error(`${route.method} ${path} was rejected (${response.status}) but changed the database`);
          }
        }
      },
    ),
    { numRuns: RUNS, seed: Number(process.env.FUZZ_SEED ?? 20261121) },
  );
  const summary = [...outcomes.entries()].sort((a, b) => a[0] - b[0]).map(([status, n]) => `${status}: ${n}`).join(', ');
  t.comment(`cases by status: ${summary}; rejected writes checked for no change: ${rejectedChecked}`);
  t.notOk([...outcomes.keys()].some((status) => status >= 500), 'no 5xx');
  t.ok(rejectedChecked > RUNS / 10, 'many rejected writes were checked');
});

