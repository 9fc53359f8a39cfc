import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { routeTable } from '../../server/http/routes/index.js';
import { repoRoot } from '../helpers/cli.js';
import { dialect, jsonBody, startTestServer } from '../helpers/server.js';

const REDOCLY = path.join(repoRoot, 'node_modules/@redocly/cli/bin/cli.js');

t.test(`/api/openapi.json describes the whole route table (${dialect})`, async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const response = await s.request('/api/openapi.json');
  t.equal(response.status, 200);
  t.match(response.headers.get('content-type'), /^application\/json/);
  const etag = response.headers.get('etag')!;
  t.match(etag, /^"[A-Za-z0-9_-]+"$/, 'a strong ETag');
  const text = await response.text();
  const document = JSON.parse(text);

  await t.test('strong ETag with If-None-Match', async (t) => {
    const again = await s.request('/api/openapi.json', { headers: { 'If-None-Match': etag } });
    t.equal(again.status, 304);
    t.equal(await again.text(), '');
    t.equal((await s.request('/api/openapi.json', { headers: { 'If-None-Match': '"other"' } })).status, 200);
    t.equal(await (await s.request('/api/openapi.json/')).text(), text, 'the same bytes every time');
  });

  await t.test('every route, on every path, is an operation with its schemas', async (t) => {
    t.equal(document.openapi, '3.1.0');
    const operations = new Set<string>();
    const table = routeTable(s.server.runtime.services);
    t.ok(table.length >= 80, `${table.length} routes`);
    for (const route of table) {
      t.ok(route.schema.summary && route.schema.tags.length > 0 && Object.keys(route.schema.responses).length > 0, `${route.name} is described`);
      for (const p of route.paths) {
        const template = p.replace(/:([A-Za-z_]+)/g, '{$1}');
        const operation = document.paths[template]?.[route.method.toLowerCase()];
        t.ok(operation, `${route.method} ${template} (${route.name})`);
        if (!operation) continue;
        operations.add(operation.operationId);
        for (const name of [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1])) {
          t.ok(operation.parameters.some((parameter: { name: string; in: string }) => parameter.name === name && parameter.in === 'path'), `${template}: {${name}} is defined`);
        }
        if (route.body?.includes('json')) t.ok(operation.requestBody?.content?.['application/json']?.schema, `${route.name}: its JSON body is described`);
      }
    }
    const count = Object.values(document.paths).reduce((sum: number, ops) => sum + Object.keys(ops as object).length, 0);
    t.equal(operations.size, count, 'operation ids are unique, and nothing else is described');
  });

  await t.test('it is valid OpenAPI 3.1 (redocly lint)', async (t) => {
    if (dialect !== 'sqlite') return void t.pass('the document does not depend on the database: linted in the SQLite run', { skip: 'SQLite run only' });
    if (!fs.existsSync(REDOCLY)) return void t.pass('skipped: @redocly/cli is not installed', { skip: 'no @redocly/cli' });
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'fieldops-openapi-')), 'openapi.json');
    fs.writeFileSync(file, text);
    const lint = spawnSync(process.execPath, [REDOCLY, 'lint', file, '--format=summary'], {
      encoding: 'utf8',
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
      timeout: 60000,
    });
    t.equal(lint.status, 0, `redocly lint: ${lint.stdout}${lint.stderr}`.slice(0, 4000));
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  });

  await t.test('requests are checked against the same schemas, with the contract\'s error body', async (t) => {
    const token = (await s.login()).access_token;
    const badBoolean = await s.json('/api/v1.0/activity/patrols/types?include_inactive=maybe', { token });
    t.equal(badBoolean.status, 400);
    t.match(badBoolean.body.include_inactive, [{ code: 'invalid_boolean', pointer: '/include_inactive' }]);
    for (const value of ['TRUE', 'Yes', 'on', '0', 'off', '']) t.equal((await s.json(`/api/v1.0/activity/patrols/types?include_inactive=${value}`, { token })).status, 200, `include_inactive=${value}`);
    t.equal((await s.json('/api/v1.0/activity/patrols/types?include_inactive=maybe&include_inactive=true', { token })).status, 200, 'the last value counts');

    const body = await s.json('/api/v1.0/activity/patrols/types', jsonBody({ value: 'a b', display: 7, colour: 'red', default_priority: 5 }, { token }));
    t.equal(body.status, 400);
    t.same(body.body.status, { code: 400, message: 'Bad Request', detail: 'The request body is not valid.' });
    t.match(body.body, {
      value: [{ code: 'invalid', pointer: '/value' }],
      display: [{ code: 'invalid_type', pointer: '/display' }],
      colour: [{ code: 'unknown_field', pointer: '/colour' }],
      default_priority: [{ code: 'invalid_choice', pointer: '/default_priority', hints: ['Use one of 0, 100, 200, 300.'] }],
    });
    const nested = await s.json('/api/v1.0/activity/patrols', jsonBody({ patrol_segments: [{ leader: { content_type: 'nobody' }, start_location: { latitude: 91, longitude: 0 } }] }, { token }));
    t.equal(nested.status, 400);
    t.match(nested.body, { 'patrol_segments[0].leader': [{ code: 'invalid_leader', pointer: '/patrol_segments/0/leader' }], 'patrol_segments[0].start_location': [{ code: 'invalid_location' }] });

    await s.server.runtime.admin.createUser({ tenant: 'default', username: 'no.rights', password: 'Quiet-Heron-Passphrase-1', permissions: [] });
    const nobody = (await s.login('no.rights', 'Quiet-Heron-Passphrase-1')).access_token;
    t.equal((await s.json('/api/v1.0/activity/patrols/types', jsonBody({ value: 7 }, { token: nobody }))).status, 403, 'permission comes before the body');
    t.equal((await s.json('/api/v1.0/activity/patrols/types', jsonBody({ value: 7 }))).status, 401, 'and credentials before both');
  });
});
