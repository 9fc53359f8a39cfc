/**
 * Issue 28: `fieldops lint --against` through the real binary against a real server (both
 * databases): a type whose stored events hold a field and a choice; a file removing the field
 * is a breaking finding with its count and line:column in every format; `--allow-breaking`
 * makes it a warning carrying the reason; `--against mirror` gives the same findings with the
 * server unreachable (a TCP proxy in front of it, stopped). Depends on the server's usage route
 * (`GET …/eventtypes/usage`) and on the compat engine (schema/compat/index.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { createPointerLocator } from '../../schema/index.js';
import { send } from '../helpers/catalog.js';
import { cliEnv } from '../helpers/cli-env.js';
import { startTestServer } from '../helpers/server.js';
import { seedCatalog } from '../helpers/sync-seed.js';
import { startTcpProxy } from '../helpers/tcp-proxy.js';

const EVENTS = '/api/v1.0/activity/events';
const TYPE = 'wildlife_sighting';

/** The seeded schema (notes + species) without `notes`. */
function withoutNotes(schema: any) {
  const doc = structuredClone(schema);
  delete doc.json.properties.notes;
  delete doc.ui.fields.notes;
  doc.ui.sections.main.leftColumn = doc.ui.sections.main.leftColumn.filter((e: any) => e.name !== 'notes');
  return doc;
}

const compact = (findings: any[]) => findings.filter((f) => f.category === 'compatibility').map((f) => ({ code: f.code, line: f.line, column: f.column, affected: f.affected_events, severity: f.severity }));

t.test('lint --against a server and its mirror', async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const token = (await s.login()).access_token;
  await seedCatalog(s, token);
  for (let i = 0; i < 3; i++) {
    const posted = await s.json(EVENTS, send('POST', { event_type: TYPE, time: `2026-11-20T0${i}:00:00+00:00`, event_details: { notes: `seen ${i}`, species: 'lion' } }, token));
    t.equal(posted.status, 201, JSON.stringify(posted.body));
  }
  const detail = await s.json(`/api/v2.0/activity/eventtypes/${TYPE}?include_schema=true`, { token });
  const proxy = await startTcpProxy(t, { host: '127.0.0.1', port: Number(new URL(s.url).port) });
  const cli = cliEnv(t);
  t.equal((await cli.login(`http://127.0.0.1:${proxy.port}`)).code, 0);
  const file = path.join(cli.dir, `${TYPE}.v2.json`);
  const text = JSON.stringify(withoutNotes(detail.body.schema), null, 2) + '\n';
  fs.writeFileSync(file, text);
  const locator = createPointerLocator(text);
  let online: any[] = [];

  await t.test('a removed field that stored events hold: an error with its count and position', async (t) => {
    const json = await cli.run(['lint', file, '--against', 'default', '--format', 'json']);
    t.equal(json.code, 1, json.stderr);
    const report = JSON.parse(json.stdout);
    const found = report.files[0].findings.find((f: any) => f.code === 'breaking/removed-field');
    t.ok(found, 'breaking/removed-field reported');
    t.equal(found?.severity, 'error');
    t.equal(found?.affected_events, 3, 'three stored events hold notes');
    t.match(found?.message, /notes/);
    t.match(found?.message, /3/);
    const at = locator(found.pointer);
    t.ok(at, `the pointer ${found.pointer} is in the file`);
    const expected = at!.exact && at!.key ? at!.key : at!;
    t.same([found.line, found.column], [expected.line, expected.column], 'line:column of the pointer');
    t.match(report.against.source, /profile "default"/);
    online = compact(report.files[0].findings);

    const stylish = await cli.run(['lint', file, '--against', 'default']);
    t.equal(stylish.code, 1);
    t.match(stylish.stdout, new RegExp(`${found.line}:${found.column}\\s+error\\s+.*notes.*breaking/removed-field`));
    const sarif = JSON.parse((await cli.run(['lint', file, '--against', 'default', '--format', 'sarif'])).stdout);
    const result = sarif.runs[0].results.find((r: any) => r.ruleId === 'breaking/removed-field');
    t.same(result?.locations[0].physicalLocation.region, { startLine: found.line, startColumn: found.column });
    t.equal(result?.properties?.affectedEvents, 3);
    t.ok(sarif.runs[0].tool.driver.rules.some((r: any) => r.id === 'breaking/removed-field'), 'the rule is described');
  });

  await t.test('--allow-breaking with --reason: a warning carrying the reason, exit 0', async (t) => {
    const args = ['lint', file, '--against', 'default', '--allow-breaking', 'breaking/removed-field', '--reason', 'notes retired, see #42'];
    const json = await cli.run([...args, '--format', 'json']);
    t.equal(json.code, 0, json.stdout + json.stderr);
    const found = JSON.parse(json.stdout).files[0].findings.find((f: any) => f.code === 'breaking/removed-field');
    t.equal(found?.severity, 'warning');
    t.same(found?.allowed, { reason: 'notes retired, see #42' });
    t.same(JSON.parse(json.stdout).against.allowed_breaks, [{ rule: 'breaking/removed-field', reason: 'notes retired, see #42' }]);
    const sarif = JSON.parse((await cli.run([...args, '--format', 'sarif'])).stdout);
    const result = sarif.runs[0].results.find((r: any) => r.ruleId === 'breaking/removed-field');
    t.equal(result?.level, 'warning');
    t.equal(result?.properties?.allowedReason, 'notes retired, see #42');
  });

  await t.test('usage errors: exit 2 with a hint', async (t) => {
    const noReason = await cli.run(['lint', file, '--against', 'default', '--allow-breaking', 'breaking/removed-field']);
    t.equal(noReason.code, 2);
    t.match(noReason.stderr, /--reason/);
    const unknown = await cli.run(['lint', file, '--against', 'default', '--allow-breaking', 'breaking/nope', '--reason', 'x']);
    t.equal(unknown.code, 2);
    t.match(unknown.stderr, /breaking\/nope/);
    t.match(unknown.stderr, /breaking\/removed-choice/, 'the known rule ids are listed');
    const noProfile = await cli.run(['lint', file, '--against', 'nosuch']);
    t.equal(noProfile.code, 2, noProfile.stderr);
    t.match(noProfile.stderr, /no profile "nosuch"/);
    t.match(noProfile.stderr, /fieldops login --profile nosuch/);
  });

  await t.test('a type the server does not have is new: no breaking finding, an info line', async (t) => {
    const fresh = path.join(cli.dir, 'brand_new_type.json');
    fs.writeFileSync(fresh, text);
    const run = await cli.run(['lint', fresh, '--against', 'default', '--format', 'json']);
    t.equal(run.code, 0, run.stdout + run.stderr);
    t.same(compact(JSON.parse(run.stdout).files[0].findings), []);
    t.match(run.stderr, /"brand_new_type" is a new type/);
  });

  await t.test('--against mirror, offline after a sync: the same findings', async (t) => {
    const sync = await cli.run(['sync']);
    t.equal(sync.code, 0, sync.stderr);
    await proxy.stop();
    const run = await cli.run(['lint', file, '--against', 'mirror', '--format', 'json']);
    t.equal(run.code, 1, run.stderr);
    const report = JSON.parse(run.stdout);
    t.ok(online.length > 0, 'the online lint found something to compare with');
    t.same(compact(report.files[0].findings), online, 'same findings as online');
    t.match(report.against.source, /the mirror of profile "default"/);
    await proxy.start();
  });

  await t.test('--against mirror without a kept summary: a warning, schemas compared only', async (t) => {
    const other = cliEnv(t);
    t.equal((await other.login(`http://127.0.0.1:${proxy.port}`)).code, 0);
    t.equal((await other.run(['sync'])).code, 0);
    const { KnexMirrorStore } = await import('../../sync/mirror/knex-store.js');
    const { openMirrorDatabase } = await import('../../sync/mirror/open.js');
    const knex = (await openMirrorDatabase(other.mirror, { create: false }))!;
    await knex('usage_summaries').delete();
    await new KnexMirrorStore(knex).close();
    const run = await other.run(['lint', file, '--against', 'mirror', '--format', 'json']);
    const findings = JSON.parse(run.stdout).files[0].findings;
    const warning = findings.find((f: any) => f.code === 'compat/no-usage-summary');
    t.equal(warning?.severity, 'warning');
    t.match(warning?.hints.join(' '), /fieldops sync/);
  });
});
