/**
 * Issue 28: `fieldops events validate FILE --type T [--draft]` through the real binary against a
 * real server (both databases). A record valid only under the draft passes with `--draft` and
 * fails without (the mirrored current schema); no draft is a clear error with a hint. Depends on
 * the server's draft routes (`PUT/GET …/eventtypes/:key/draft`).
 */
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { send } from '../helpers/catalog.js';
import { cliEnv } from '../helpers/cli-env.js';
import { startTestServer } from '../helpers/server.js';
import { seedCatalog } from '../helpers/sync-seed.js';

const TYPE = 'wildlife_sighting';

t.test('events validate against the mirrored schema and against the draft', async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const token = (await s.login()).access_token;
  await seedCatalog(s, token);
  const cli = cliEnv(t);
  t.equal((await cli.login(s.url)).code, 0);
  t.equal((await cli.run(['sync'])).code, 0);
  const records = path.join(cli.dir, 'samples.json');
  fs.writeFileSync(records, JSON.stringify([{ time: '2026-11-20T08:00:00+00:00', event_details: { notes: 'ok', weather: 'rain' } }], null, 2));

  await t.test('no draft: an error naming the type, with a hint', async (t) => {
    const run = await cli.run(['events', 'validate', records, '--type', TYPE, '--draft']);
    t.equal(run.code, 1, run.stderr);
    t.match(run.stderr, /has no draft/);
    t.match(run.stderr, /fieldops schema draft/);
  });

  const detail = await s.json(`/api/v2.0/activity/eventtypes/${TYPE}?include_schema=true`, { token });
  const draft = structuredClone(detail.body.schema);
  draft.json.properties.weather = { type: 'string', title: 'Weather', maxLength: 50 };
  draft.ui.fields.weather = { type: 'TEXT', inputType: 'SHORT_TEXT', parent: 'main' };
  draft.ui.sections.main.leftColumn.push({ name: 'weather', type: 'field' });
  const put = await s.json(`/api/v2.0/activity/eventtypes/${TYPE}/draft`, send('PUT', { schema: draft }, token));
  t.equal(put.status, 200, JSON.stringify(put.body));

  await t.test('a record valid only under the draft: fails without --draft, passes with it', async (t) => {
    const current = await cli.run(['events', 'validate', records, '--type', TYPE, '--json']);
    t.equal(current.code, 1, current.stderr);
    const body = JSON.parse(current.stdout);
    t.equal(body.invalid, 1);
    t.ok(body.findings.some((f: any) => /weather/.test(f.pointer + f.message)), 'the unknown field is named');
    const drafted = await cli.run(['events', 'validate', records, '--type', TYPE, '--draft', '--json']);
    t.equal(drafted.code, 0, drafted.stdout + drafted.stderr);
    t.match(JSON.parse(drafted.stdout), { draft: true, rows: 1, valid: 1, invalid: 0, findings: [] });
    t.match(drafted.stderr, /against the draft of wildlife_sighting/);
  });

  await t.test('the draft is still checked: an invalid record fails with --draft', async (t) => {
    const bad = path.join(cli.dir, 'bad.json');
    fs.writeFileSync(bad, JSON.stringify([{ event_details: { weather: 'x'.repeat(60) } }]));
    const run = await cli.run(['events', 'validate', bad, '--type', TYPE, '--draft', '--format', 'stylish']);
    t.equal(run.code, 1);
    t.match(run.stdout, /weather/);
  });
});
