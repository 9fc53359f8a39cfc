/**
 * Issue 24 item 13e: `fieldops choices push` (one request per record) shows its progress on a
 * terminal (stderr, the Ink bar of cli/ui/), and nothing when stderr is not a terminal or with
 * --json. The view rendered (ink-testing-library), the display on a fake terminal stream and on
 * a pipe, and the real binary against a real server: piped, and on a real pseudo-terminal
 * (`script`, when present).
 */
import '../helpers/not-in-ci.js';
import { spawn, spawnSync } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { render } from 'ink-testing-library';
import t from 'tap';
import { commandContext } from '../../cli/context.js';
import { ChoicesProgress } from '../../cli/ui/ChoicesProgress.js';
import { choicesDisplay } from '../../cli/ui/choices-display.js';
import { binPath } from '../helpers/cli.js';
import { cliEnv } from '../helpers/cli-env.js';
import { startTestServer } from '../helpers/server.js';
import { writeFile } from '../sync/offline-fixtures.js';

const result = (created: number, existing: number, refused = 0) => ({ created, existing, refused: Array.from({ length: refused }, () => ({ field: 'f', value: 'v', reason: 'r' })) });

t.test('the view: a bar, done/total, the outcomes so far', async (t) => {
  const { lastFrame, rerender, unmount } = render(<ChoicesProgress done={1500} total={4500} created={1400} existing={100} refused={0} />);
  t.match(lastFrame(), /^choices +\[█{10}░{20}\]  33% 1500\/4500\n1400 created, 100 already there$/);
  rerender(<ChoicesProgress done={4500} total={4500} created={4390} existing={100} refused={10} />);
  t.match(lastFrame(), /\[█{30}\] 100% 4500\/4500\n4390 created, 100 already there, 10 refused/);
  unmount();
});

t.test('on a terminal the display draws; piped or with --json it is silent', async (t) => {
  const draw = async (stderr: PassThrough, json: boolean) => {
    let text = '';
    stderr.on('data', (chunk) => (text += chunk));
    const ctx = commandContext({ stdout: new PassThrough(), stderr, env: {} }, { json });
    let clock = 0;
    const display = await choicesDisplay(ctx, 300, () => (clock += 1000));
    for (let done = 1; done <= 300; done++) display.onProgress(done, 300, result(done, 0));
    await display.stop();
    return text;
  };
  const tty = () => Object.assign(new PassThrough(), { isTTY: true, columns: 80, rows: 24 });
  const drawn = await draw(tty(), false);
  t.match(drawn, /choices +\[/, 'a bar on a terminal');
  t.match(drawn, /300\/300/);
  t.match(drawn, /300 created, 0 already there/);
  t.equal(await draw(new PassThrough(), false), '', 'nothing on a pipe');
  t.equal(await draw(tty(), true), '', 'nothing with --json, even on a terminal');
});

t.test('the real binary: silent piped, a bar on a pseudo-terminal', async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const cli = cliEnv(t);
  t.equal((await cli.login(s.url)).code, 0);
  const total = 60;
  const file = writeFile(cli, 'choices.json', JSON.stringify(Array.from({ length: total }, (_, i) => ({ field: 'progress_test', value: `v${i}`, display: `Value ${i}` }))));

  const piped = await cli.run(['choices', 'push', file]);
  t.equal(piped.code, 0, piped.stderr);
  t.match(piped.stdout, new RegExp(`^${total} created, 0 already there, 0 refused \\(of ${total} in `));
  t.equal(piped.stderr, 'run `fieldops sync` to mirror them (lint checks choice references against the mirror)\n', 'stderr carries no progress when it is not a terminal');
  const json = await cli.json(['choices', 'push', file]);
  t.same(json.body, { created: 0, existing: total, refused: [] });
  t.equal(json.stderr, '', '--json: nothing on stderr');

  if (spawnSync('script', ['--version']).status !== 0) return void t.pass('skipped', { skip: 'no `script` here to give the CLI a terminal' });
  // `script` runs the CLI on a pseudo-terminal and copies what it draws to our pipe.
  const command = [process.execPath, binPath, 'choices', 'push', file].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const drawn = await new Promise<{ code: number | null; out: string }>((resolve) => {
    const child = spawn('script', ['-qefc', command, '/dev/null'], { env: { ...cli.env, PATH: process.env.PATH ?? '', TERM: 'xterm', COLUMNS: '100' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.stderr.on('data', (chunk) => (out += chunk));
    child.on('close', (code) => resolve({ code, out }));
  });
  t.equal(drawn.code, 0, drawn.out);
  t.match(drawn.out, new RegExp(`choices +\\[.*\\] +\\d+% \\d+/${total}`), 'the bar, drawn on the terminal');
  t.notMatch(drawn.out, /\u001b\[2J/, 'redrawn in place: the screen is never cleared (a pseudo-terminal reports 0 rows)');
  t.match(drawn.out, new RegExp(`0 created, ${total} already there, 0 refused \\(of ${total} in `), 'then the report');
});
