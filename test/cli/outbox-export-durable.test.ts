/**
 * `fieldops outbox export` may write the only copy of unsent records (the step before a broken
 * mirror is moved aside), so its file must survive a crash: the real binary, traced with strace
 * (when present and allowed here), fsyncs the temporary file before linking it into place, and
 * the folder after. A crash cannot be staged in a test; the system calls that prevent the loss
 * can be watched.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { openMirrorDatabase } from '../../sync/mirror/open.js';
import { newId } from '../../sync/outbox/ids.js';
import { OutboxStore } from '../../sync/outbox/store.js';
import { binPath } from '../helpers/cli.js';
import { cliEnv } from '../helpers/cli-env.js';

t.test('the export is fsynced before it is linked into place, and its folder after', async (t) => {
  if (spawnSync('strace', ['-o', '/dev/null', 'true']).status !== 0) return void t.pass('skipped', { skip: 'strace is not available (or not allowed) here' });
  const cli = cliEnv(t);
  const knex = await openMirrorDatabase(cli.mirror, { create: true });
  const id = newId();
  await new OutboxStore(knex!).enqueue([{ id, kind: 'event.create', target: id, body: { id, event_type: 'sighting', event_details: {} } }]);
  await knex!.destroy();

  const folder = fs.realpathSync(cli.dir);
  const out = path.join(folder, 'rescued.json');
  const trace = path.join(folder, 'trace.txt');
  const run = spawnSync('strace', ['-f', '-y', '-qq', '-e', 'trace=fsync,fdatasync,link,linkat,rename,renameat,renameat2', '-o', trace, process.execPath, binPath, 'outbox', 'export', '--out', out], {
    env: { PATH: process.env.PATH ?? '', ...cli.env },
    encoding: 'utf8',
  });
  t.equal(run.status, 0, run.stderr);
  t.match(JSON.parse(fs.readFileSync(out, 'utf8')), { entries: [{ id }] });

  // Lines such as `123 fsync(21</tmp/x/rescued.json.123.tmp>) = 0` and `123 link("…tmp", "…json") = 0`.
  const calls = fs.readFileSync(trace, 'utf8').split('\n').filter((line) => line.includes(folder));
  const temporary = new RegExp(`^\\d+ +f(data)?sync\\(\\d+<${escape(out)}\\.\\d+\\.tmp>\\) += 0`);
  const linked = new RegExp(`^\\d+ +link(at)?\\(.*"${escape(out)}\\.\\d+\\.tmp", .*"${escape(out)}".*\\) += 0`);
  const folderSynced = new RegExp(`^\\d+ +f(data)?sync\\(\\d+<${escape(folder)}>\\) += 0`);
  const at = (pattern: RegExp) => calls.findIndex((line) => pattern.test(line));
  t.ok(at(linked) >= 0, 'linked into place', { calls });
  t.ok(at(temporary) >= 0 && at(temporary) < at(linked), 'the temporary file is fsynced before it is linked');
  t.ok(at(folderSynced) > at(linked), 'the folder is fsynced after the link');
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
