/**
 * `fieldops replay` of the demo recordings (fixtures/recordings/) against a real server, with
 * the server's own counts as the check; re-runs, --from, rejected lines, a server that goes
 * away mid-replay, and the pacing rules.
 */
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { createPacer } from '../../cli/replay/pacing.js';
import { parseRecording } from '../../cli/replay/recording.js';
import { repoRoot } from '../helpers/cli.js';
import { cliEnv } from '../helpers/cli-env.js';
import { spawnCli } from '../helpers/cli-process.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { startWireProxy } from '../helpers/wire-proxy.js';

const recordings = path.join(repoRoot, 'fixtures', 'recordings');

/** The server's count of a paginated resource (`{count}`, or inside the `{data}` envelope). */
async function count(s: TestServer, token: string, resource: string): Promise<number> {
  const { status, body } = await s.json(`${resource}?page_size=1`, { token });
  if (status !== 200) throw new Error(`${resource}: ${status} ${JSON.stringify(body)}`);
  return body.count ?? body.data.count;
}

const line = (at: string, recordedAt: string, id: string, lat = -1.4) =>
  JSON.stringify({ at, path: '/sensors/gps-radio/test-collars/status', body: { location: { lat, lon: 35.01 }, recorded_at: recordedAt, manufacturer_id: id } });

t.test('replaying the demo recordings', async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const token = (await s.login()).access_token;
  const cli = cliEnv(t);
  t.equal((await cli.login(s.url)).code, 0);
  const replay = (file: string, ...args: string[]) => cli.json(['replay', path.join(recordings, file), '--max-rate', '1000', ...args]);

  await t.test('GPS collars: every fix stored, counted by the server', async (t) => {
    const { code, body, stderr } = await replay('gps-collars.ndjson');
    t.equal(code, 0, stderr);
    t.same(body.outcomes, { created: 24, duplicate: 0, accepted: 0, rejected: 0 });
    t.equal(await count(s, token, '/api/v1.0/observations'), 27, '3 collars × 9 fixes (one line is a batch of 4)');
    t.match(stderr, /24\/24 sent: 24 created/, 'progress lines on stderr without a terminal');
  });

  await t.test('radio agent: observations stored, heartbeats accepted', async (t) => {
    const { code, body } = await replay('radio-agent.ndjson');
    t.equal(code, 0);
    t.same(body.outcomes, { created: 12, duplicate: 0, accepted: 2, rejected: 0 });
    t.equal(await count(s, token, '/api/v1.0/observations'), 39);
  });

  await t.test('camera traps: images uploaded as multipart, one report event each', async (t) => {
    const { code, body } = await replay('camera-traps.ndjson');
    t.equal(code, 0);
    t.same(body.outcomes, { created: 4, duplicate: 0, accepted: 0, rejected: 0 });
    t.equal(await count(s, token, '/api/v1.0/activity/events'), 4);
  });

  await t.test('safe to re-run: the server de-duplicates, counts stay', async (t) => {
    const again = await cli.run(['replay', path.join(recordings, 'gps-collars.ndjson'), '--max-rate', '1000']);
    t.equal(again.code, 0);
    t.match(again.stdout, /24 of 24 lines sent\.\noutcome\s+lines\ncreated\s+0\s+stored as new\nduplicate\s+24\s+already stored/);
    t.same((await replay('camera-traps.ndjson')).body.outcomes, { created: 0, duplicate: 4, accepted: 0, rejected: 0 });
    t.equal(await count(s, token, '/api/v1.0/observations'), 39);
    t.equal(await count(s, token, '/api/v1.0/activity/events'), 4);
  });

  await t.test('rejected lines are reported with the server\'s reason; the rest is stored', async (t) => {
    const file = path.join(cli.dir, 'mixed.ndjson');
    fs.writeFileSync(file, [line('2026-11-20T10:00:00Z', '2026-11-20T10:00:00Z', 'm-1'), '', line('2026-11-20T10:00:01Z', '2026-11-20T10:00:01Z', 'm-2', 123)].join('\n') + '\n');
    const result = await cli.run(['replay', file, '--max-rate', '1000']);
    t.equal(result.code, 1, 'something was rejected: exit 1');
    t.match(result.stdout, /created\s+1[\s\S]*rejected\s+1[\s\S]*  line 3: HTTP 400: .*lat/);
    t.match(result.stderr, /line 3: rejected \(HTTP 400\)/);
    t.equal(await count(s, token, '/api/v1.0/observations'), 40);
  });

  await t.test('an invalid recording is refused before anything is sent', async (t) => {
    const file = path.join(cli.dir, 'broken.ndjson');
    fs.writeFileSync(file, [line('2026-11-20T11:00:00Z', '2026-11-20T11:00:00Z', 'b-1'), '{"at": "yesterday", "path": "/sensors/gps-radio/x/status", "body": {}}', '{not json', JSON.stringify({ at: '2026-11-20T11:00:00Z', path: '/sensors/camera-trap/x/status', file: 'missing.png' })].join('\n'));
    const result = await cli.run(['replay', file]);
    t.equal(result.code, 1);
    t.match(result.stderr, /broken\.ndjson:2: `at` must be an ISO 8601 time with an offset/);
    t.match(result.stderr, /broken\.ndjson:3: not JSON/);
    t.match(result.stderr, /broken\.ndjson:4: image not found: missing\.png/);
    t.match(result.stderr, /has 3 invalid lines; nothing was sent/);
    t.equal(await count(s, token, '/api/v1.0/observations'), 40, 'nothing sent');
    t.equal((await cli.run(['replay', file, '--speed', '0'])).code, 2, 'usage: --speed must be positive');
  });

  await t.test('--from resumes at a line', async (t) => {
    const file = path.join(cli.dir, 'five.ndjson');
    fs.writeFileSync(file, [1, 2, 3, 4, 5].map((i) => line(`2026-11-20T12:00:0${i}Z`, `2026-11-20T12:00:0${i}Z`, `f-${i}`)).join('\n') + '\n');
    const tail = await cli.json(['replay', file, '--from', '3', '--max-rate', '1000']);
    t.same([tail.body.lines, tail.body.outcomes.created], [3, 3]);
    const all = await cli.json(['replay', file, '--max-rate', '1000']);
    t.same(all.body.outcomes, { created: 2, duplicate: 3, accepted: 0, rejected: 0 });
    t.equal(await count(s, token, '/api/v1.0/observations'), 45);
  });

  await t.test('the recorded spacing is kept, scaled by --speed', async (t) => {
    const file = path.join(cli.dir, 'spaced.ndjson');
    fs.writeFileSync(file, [0, 2, 4].map((i) => line(`2026-11-20T13:00:0${i}Z`, `2026-11-20T13:00:0${i}Z`, `p-${i}`)).join('\n') + '\n');
    const started = Date.now();
    const result = await cli.run(['replay', file, '--speed', '10']);
    t.equal(result.code, 0);
    t.ok(Date.now() - started >= 400, '4 s of recording at 10× take at least 0.4 s');
  });
});

t.test('a server that goes away mid-replay: stop, say where to resume, resume', async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const token = (await s.login()).access_token;
  const proxy = await startWireProxy(t, s.url);
  const cli = cliEnv(t, { FIELDOPS_TOKEN: token, FIELDOPS_RETRIES: '2' });
  const file = path.join(recordings, 'gps-collars.ndjson');
  const run = spawnCli(['replay', file, '--max-rate', '20'], { ...cli.env, FIELDOPS_SERVER: proxy.url });
  await run.waitForStderr(/6\/24 sent/);
  await proxy.close();
  const { code } = await run.exited;
  t.equal(code, 1);
  const resume = /resume with `fieldops replay .*gps-collars\.ndjson --from (\d+)`/.exec(run.stderr());
  t.ok(resume, `a resume hint: ${run.stderr()}`);
  t.match(run.stderr(), /replay stopped at line \d+: cannot reach http:\/\/127\.0\.0\.1:\d+/);
  const from = resume![1]!;
  const rest = await cli.json(['replay', file, '--from', from, '--max-rate', '1000'], { env: { FIELDOPS_SERVER: s.url } });
  t.equal(rest.code, 0, rest.stderr);
  t.equal(rest.body.outcomes.rejected, 0);
  t.equal(await count(s, token, '/api/v1.0/observations'), 27, 'every fix stored exactly once');
});

t.test('Ctrl-C during a long recorded gap stops at once and says where to resume', async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const token = (await s.login()).access_token;
  const cli = cliEnv(t, { FIELDOPS_TOKEN: token, FIELDOPS_SERVER: s.url });
  const file = path.join(cli.dir, 'hour.ndjson');
  fs.writeFileSync(file, [line('2026-11-20T10:00:00Z', '2026-11-20T10:00:00Z', 'h-1'), line('2026-11-20T11:00:00Z', '2026-11-20T11:00:00Z', 'h-2')].join('\n') + '\n');
  const run = spawnCli(['replay', file], cli.env);
  await run.waitForStderr(/1\/2 sent/);
  const interrupted = Date.now();
  run.child.kill('SIGINT');
  const { code } = await run.exited;
  t.equal(code, 1);
  t.ok(Date.now() - interrupted < 5000, 'it did not wait for the hour to pass');
  t.match(run.stderr(), /replay stopped at line 2: interrupted[\s\S]*--from 2/);
  t.match(run.stdout(), /1 of 2 lines sent\.[\s\S]*not sent\s+1\s+stopped at line 2/);
  t.equal(await count(s, token, '/api/v1.0/observations'), 1);
});

t.test('pacing: recorded spacing divided by speed, capped by max-rate, no drift', async (t) => {
  let now = 0;
  const slept: number[] = [];
  const clock = { now: () => now, sleep: async (ms: number) => void (slept.push(ms), (now += ms)) };
  const at = (s: number) => Date.UTC(2026, 0, 1) + s * 1000;

  const speed = createPacer({ speed: 4, ...clock });
  for (const s of [0, 4, 6, 6, 14]) await speed.wait(at(s));
  t.same(slept, [1000, 500, 2000], '4 s, 2 s, 0 s and 8 s of recording at 4×');

  slept.length = 0;
  const rate = createPacer({ maxRate: 2, ...clock });
  for (const s of [0, 100, 100.1, 100.2]) await rate.wait(at(s));
  t.same(slept, [500, 500, 500], 'max-rate alone ignores the timestamps');

  slept.length = 0;
  const both = createPacer({ speed: 1000, maxRate: 10, ...clock });
  for (const s of [0, 1, 200]) await both.wait(at(s));
  // 1 s at 1000× would be 1 ms: the cap makes it 100 ms; 200 s at 1000× is due 200 ms after the start.
  t.same(slept, [100, 100], 'spacing at 1000× but never more than 10/s');

  slept.length = 0;
  const drift = createPacer({ speed: 1, ...clock });
  await drift.wait(at(0));
  now += 700; // sending took 0.7 s
  await drift.wait(at(1));
  t.same(slept, [300], 'time spent sending counts towards the next gap');
});

t.test('recordings: the demo fixtures are valid, and line numbers are the file\'s', async (t) => {
  for (const name of fs.readdirSync(recordings).filter((f) => f.endsWith('.ndjson'))) {
    const file = path.join(recordings, name);
    const { lines, problems } = parseRecording(fs.readFileSync(file, 'utf8'), file);
    t.same(problems, [], `${name} is valid`);
    t.ok(lines.length > 0 && lines.every((l, i) => i === 0 || l.at >= lines[i - 1]!.at), `${name} is in time order`);
  }
  const { lines } = parseRecording('\n' + line('2026-11-20T10:00:00Z', '2026-11-20T10:00:00Z', 'x') + '\n\n' + line('2026-11-20T10:00:01Z', '2026-11-20T10:00:01Z', 'y'), 'x.ndjson');
  t.same(lines.map((l) => l.line), [2, 4]);
});
