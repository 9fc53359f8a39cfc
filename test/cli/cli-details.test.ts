/**
 * Issue 14 item 6 (the CLI details) and issue 13 items 14-17 (the CLI's hardening), through the
 * real binary: --version, a mistyped command, admin help, replay's expected duration and its
 * image folder, migrate's messages and file names, choices push, server text on a terminal,
 * and secrets from standard input.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { createType, send } from '../helpers/catalog.js';
import { repoRoot, runCli } from '../helpers/cli.js';
import { cliEnv } from '../helpers/cli-env.js';
import { startTestServer } from '../helpers/server.js';
import { insideDir, slug, uniqueSlugs } from '../../cli/output/safe-names.js';
import { safeText } from '../../sync/safe-text.js';
import { describeErrorBody } from '../../sync/http-errors.js';
import { expectedDuration } from '../../cli/commands/replay.js';

const version = (JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { version: string }).version;

t.test('--version, a mistyped command, admin --help', async (t) => {
  const cli = cliEnv(t);
  const v = await cli.run(['--version']);
  t.equal(v.code, 0);
  t.equal(v.stdout.trim(), version);
  const typo = await cli.run(['synk']);
  t.equal(typo.code, 2);
  t.match(typo.stderr, /unknown command 'synk'\n\(Did you mean sync\?\)/);
  t.notMatch(typo.stderr, /Commands:/, 'not the whole help');
  t.ok(typo.stderr.trim().split('\n').length <= 3, 'a few lines');
  const help = await cli.run(['admin', '--help']);
  for (const sub of ['create-tenant', 'create-user', 'create-client', 'grant', 'set-password', 'add-profile']) {
    t.match(help.stdout, new RegExp(`^  ${sub} \\[options\\]\\s+\\w`, 'm'), `admin --help describes ${sub}`);
  }
});

t.test('replay: the expected duration up front; images only from the recording\'s folder', async (t) => {
  t.equal(expectedDuration([{ at: 0 }, { at: 7_200_000 }], { speed: 60 }), 'about 2 min (the recording spans 2 h 0 min at --speed 60; a higher --speed (or --max-rate alone) is faster)');
  t.equal(expectedDuration([{ at: 0 }, { at: 7_200_000 }], { speed: 3600 }), 'about 2 s (the recording spans 2 h 0 min at --speed 3600)');
  t.equal(expectedDuration([{ at: 0 }, { at: 1 }, { at: 2 }], { maxRate: 2 }), 'about 1 s (at --max-rate 2/s)');
  const cli = cliEnv(t, { FIELDOPS_TOKEN: 'not-a-real-token', FIELDOPS_SERVER: 'http://127.0.0.1:9', FIELDOPS_RETRIES: '1' });
  const readme = await cli.run(['replay', path.join(repoRoot, 'fixtures/recordings/gps-collars.ndjson'), '--speed', '3600']);
  t.match(readme.stderr, /^replaying 24 lines of .*gps-collars\.ndjson: about 2 s /m, "the README's example says it takes seconds");

  const dir = path.join(cli.dir, 'recordings');
  fs.mkdirSync(path.join(dir, 'images'), { recursive: true });
  fs.writeFileSync(path.join(cli.dir, 'secret.jpg'), 'not for upload');
  fs.writeFileSync(path.join(dir, 'images', 'ok.jpg'), 'image');
  fs.symlinkSync(path.join(cli.dir, 'secret.jpg'), path.join(dir, 'images', 'link.jpg'));
  const line = (file: string) => JSON.stringify({ at: '2026-11-20T10:00:00Z', path: '/sensors/camera-trap/cams/status', file, body: { camera_name: 'c1' } });
  for (const file of ['../secret.jpg', 'images/link.jpg', path.join(cli.dir, 'secret.jpg')]) {
    fs.writeFileSync(path.join(dir, 'outside.ndjson'), line(file) + '\n');
    const refused = await cli.run(['replay', path.join(dir, 'outside.ndjson')]);
    t.equal(refused.code, 1, `${file}: refused`);
    t.match(refused.stderr, /outside the recording's folder .*--allow-outside/);
    t.match(refused.stderr, /nothing was sent/);
  }
  const allowed = await cli.run(['replay', path.join(dir, 'outside.ndjson'), '--allow-outside']);
  t.notMatch(allowed.stderr, /outside the recording's folder/, '--allow-outside lets it through (then the dead server fails it)');
  fs.writeFileSync(path.join(dir, 'inside.ndjson'), line('images/ok.jpg') + '\n');
  t.notMatch((await cli.run(['replay', path.join(dir, 'inside.ndjson')])).stderr, /outside/, 'an image beside the recording is fine');
});

t.test('file names from a server are slugs inside --out; server text loses control characters', async (t) => {
  t.equal(slug('../../x'), 'x');
  t.equal(slug('..'), 'unnamed');
  t.equal(slug('Fence/Report ü'), 'fence_report');
  t.same(uniqueSlugs(['a/b', 'a_b', 'A B']), ['a_b', 'a_b-2', 'a_b-3']);
  t.throws(() => insideDir('/tmp/out', '../x.json'), /not a plain file name/);
  t.equal(insideDir('/tmp/out', 'x.json'), '/tmp/out/x.json');
  t.equal(safeText('Evil\u001b]0;owned\u0007\u001b[2J type\r\n\u009b31m'), 'Evil]0;owned[2J type31m');
  // Error text from a server reaches terminals and the outbox's stored reasons: sanitised once, where it enters.
  const answer = (body: string) => ({ status: 400, headers: {}, body: new TextEncoder().encode(body) });
  t.equal(describeErrorBody(answer(JSON.stringify({ status: { detail: 'bad\u001b]0;owned\u0007 input' } }))), 'bad]0;owned input');
  t.equal(describeErrorBody(answer('plain \u001b[2Jtext')), 'plain [2Jtext');
  t.equal(describeErrorBody(answer(JSON.stringify({ status: { detail: '\u001b\u0007' } }))), undefined, 'nothing printable left: no detail');

  // A hostile server answering the migrate endpoint with names that climb out of --out.
  const hostile = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const doc = { json: { type: 'object' }, ui: {} };
      res.end(JSON.stringify({ applied: false, results: [{ event_type: '../../escaped', v2_schema: doc, warnings: [], errors: [] }, { event_type: '/etc/x', v2_schema: doc, warnings: [], errors: [] }] }));
    });
  });
  await new Promise<void>((resolve) => hostile.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => hostile.close(() => resolve())));
  const cli = cliEnv(t, { FIELDOPS_TOKEN: 'token', FIELDOPS_SERVER: `http://127.0.0.1:${(hostile.address() as { port: number }).port}` });
  const out = path.join(cli.dir, 'a', 'b', 'out');
  const result = await cli.run(['migrate', '--remote', '--event-type', 'x', '--out', out]);
  t.equal(result.code, 0, result.stderr);
  t.same(fs.readdirSync(out).sort(), ['escaped.v2.json', 'etc_x.v2.json'], 'slugs, inside --out');
  t.same(fs.readdirSync(path.join(cli.dir, 'a')), ['b'], 'nothing written above --out');
});

t.test('against a real server: migrate messages, choices push, terminal-safe text, admin secrets', async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const token = (await s.login()).access_token;
  const cli = cliEnv(t);
  t.equal((await cli.login(s.url)).code, 0);

  const missing = await cli.run(['migrate', '--remote', '--event-type', 'nosuch']);
  t.equal(missing.code, 1);
  t.match(missing.stdout, /nosuch: 1 error, 0 warnings/);
  t.notMatch(missing.stdout, /\(v2 document \/\)/, 'an issue about the type itself points nowhere');

  const out = path.join(cli.dir, 'migrated');
  const offline = await cli.run(['migrate', path.join(repoRoot, 'fixtures/schemas/fence-patrol.v1.txt'), '--out', out, '--choices', path.join(repoRoot, 'fixtures/schemas/choices.json')]);
  t.equal(offline.code, 0, offline.stderr);
  t.match(offline.stdout, /3 new choices in .*choices\.new\.json/);
  t.match(offline.stdout, /fieldops choices push .*choices\.new\.json/, 'says how to create the new choices');
  const pushed = await cli.run(['choices', 'push', path.join(out, 'choices.new.json')]);
  t.equal(pushed.code, 0, pushed.stderr);
  t.match(pushed.stdout, /^3 created, 0 already there, 0 refused/);
  t.match((await cli.run(['choices', 'push', path.join(out, 'choices.new.json')])).stdout, /^0 created, 3 already there/, 'a second push changes nothing');
  const listed = await s.json('/api/v2.0/choices?field=fencerep_urgency', { token });
  t.equal(JSON.stringify(listed.body).match(/"value":"(low|medium|high_now)"/g)?.length, 3, 'the choices are on the server');

  // A user without the conversion permissions is told which ones are needed.
  const users = await s.json('/users/', send('POST', { username: 'viewer', password: 'Kudu-Grassland-Walk-8' }, token));
  t.equal(users.status, 201, JSON.stringify(users.body));
  const viewer = cliEnv(t);
  t.equal((await viewer.login(s.url, 'viewer', 'Kudu-Grassland-Walk-8')).code, 0);
  const apply = await viewer.run(['migrate', '--remote', '--event-type', 'x', '--apply']);
  t.equal(apply.code, 1);
  t.match(apply.stderr, /error: not allowed to convert event types\nhint: .*add_eventtype, change_eventtype and add_choice/);

  await createType(s, token, { value: 'evil', display: 'Evil\u001b]0;owned\u0007\u001b[2J type' });
  t.equal((await cli.run(['sync'])).code, 0);
  const list = await cli.run(['types', 'list']);
  t.match(list.stdout, /Evil\]0;owned\[2J type/);
  t.notMatch(list.stdout, /[\u0000-\u0008\u000b-\u001f\u007f]/, 'no control characters from the server');
  t.notMatch((await cli.run(['types', 'show', 'evil'])).stdout, /\u001b/);
});

t.test('admin secrets from standard input; a duplicate is said once', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fieldops-admin-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const env = { DATABASE_URL: path.join(dir, 'db.sqlite3') };
  const admin = (args: string[], input?: string) => runCli(['admin', ...args], { env, input });
  t.equal((await admin(['create-tenant', '--name', 'north', '--create'])).code, 0);
  const again = await admin(['create-tenant', '--name', 'north']);
  t.equal(again.code, 1);
  t.equal(again.stderr.match(/already exists/g)?.length, 1, 'the error is said once');
  const user = await admin(['create-user', '--tenant', 'north', '--username', 'lead', '--password-stdin'], 'Long-Passphrase-9x\n');
  t.equal(user.code, 0, user.stderr);
  t.notMatch(user.stderr, /warning/, 'no warning when the password came from standard input');
  const onCommandLine = await admin(['create-user', '--tenant', 'north', '--username', 'lead2', '--password', 'Long-Passphrase-9y']);
  t.equal(onCommandLine.code, 0);
  t.match(onCommandLine.stderr, /warning: --password on the command line is visible .*prefer --password-stdin/);
  const client = await admin(['create-client', '--tenant', 'north', '--client-id', 'gw', '--secret-stdin', '--permission', 'add_observation'], 'gateway-secret-abcdefgh\n');
  t.equal(client.code, 0, client.stderr);
  t.match(client.stdout, /created confidential client gw/);
  t.equal(client.stderr, `using database: ${env.DATABASE_URL}\n`, 'no warning for a confidential client');
  const publicClient = await admin(['create-client', '--tenant', 'north', '--client-id', 'pub', '--permission', 'add_observation']);
  t.equal(publicClient.code, 0);
  t.match(publicClient.stderr, /warning: a public client .* acts with its permissions for anyone who knows its id "pub"/);
  const both = await admin(['create-client', '--tenant', 'north', '--client-id', 'x', '--secret', 'gateway-secret-abcdefgh', '--secret-stdin'], 'y\n');
  t.equal(both.code, 2, 'not both');
});
