import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { repoRoot } from '../helpers/cli.js';

/**
 * deploy/: no container engine runs here, so the Dockerfile is linted for what docs/deploy.md
 * promises (node:20-slim, a non-root user, a /readyz healthcheck, `serve`); the systemd unit is
 * checked by `systemd-analyze verify` where it exists.
 */
t.test('deploy/Dockerfile: node:20-slim, non-root, healthcheck on /readyz', async (t) => {
  const text = fs.readFileSync(path.join(repoRoot, 'deploy/Dockerfile'), 'utf8').replace(/\\\n/g, ' ');
  const instructions = text.split('\n').map((line) => line.trim()).filter((line) => line && !line.startsWith('#')).map((line) => {
    const [keyword, ...rest] = line.split(/\s+/);
    return { keyword: keyword!.toUpperCase(), args: rest.join(' ') };
  });
  const froms = instructions.filter((i) => i.keyword === 'FROM');
  t.ok(froms.length > 0 && froms.every((i) => /^node:20-slim\b/.test(i.args)), 'every stage is node:20-slim');
  const finalStage = instructions.slice(instructions.lastIndexOf(froms.at(-1)!));
  const user = finalStage.filter((i) => i.keyword === 'USER').at(-1);
  t.ok(user && !/^(root|0)(:|$)/.test(user.args), `the final stage runs as a non-root user (${user?.args})`);
  const healthcheck = finalStage.find((i) => i.keyword === 'HEALTHCHECK');
  t.match(healthcheck?.args ?? '', /\/readyz/, 'HEALTHCHECK asks /readyz');
  t.match(finalStage.find((i) => i.keyword === 'CMD')?.args ?? '', /bin\/fieldops\.js", "serve"/, 'CMD serves');
  t.ok(finalStage.findIndex((i) => i.keyword === 'USER') < finalStage.findIndex((i) => i.keyword === 'CMD'), 'USER before CMD');
  // What running needs, as the package ships it (package.json "files", less the CLI's README).
  const copied = finalStage.filter((i) => i.keyword === 'COPY').map((i) => i.args.split(/\s+/).filter((arg) => !arg.startsWith('--'))[0]!.replace(/^\/app\//, '').replace(/\/$/, ''));
  const files = (JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { files: string[] }).files;
  for (const needed of [...files.filter((entry) => !entry.startsWith('!') && !entry.endsWith('README.md')).map((entry) => entry.replace(/\/$/, '')), 'node_modules', 'package.json']) {
    t.ok(copied.some((source) => needed === source || needed.startsWith(`${source}/`)), `the final stage has ${needed}`);
  }
  // Native modules are built: installing without scripts leaves them without their binaries.
  const build = instructions.slice(0, instructions.indexOf(froms.at(-1)!));
  const install = build.find((i) => i.keyword === 'RUN' && /npm ci/.test(i.args))?.args ?? '';
  t.ok(!/--ignore-scripts/.test(install) || /npm rebuild better-sqlite3 re2/.test(install), 'better-sqlite3 and re2 are built in the build stage');
  t.ok(build.some((i) => i.keyword === 'RUN' && /apt-get install .*python3.*make.*g\+\+/.test(i.args)), 'with a compiler to build them');
});

t.test('deploy/fieldops.service passes systemd-analyze verify', async (t) => {
  const unit = path.join(repoRoot, 'deploy/fieldops.service');
  const text = fs.readFileSync(unit, 'utf8');
  t.match(text, /^User=fieldops$/m, 'not root');
  t.match(text, /^ExecStart=.*fieldops\.js serve$/m);
  const probe = spawnSync('systemd-analyze', ['--version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) return void t.pass('skipped: systemd-analyze is not installed here', { skip: 'no systemd-analyze' });
  const result = spawnSync('systemd-analyze', ['verify', unit], { encoding: 'utf8' });
  // NOTE: verify reports a missing ExecStart binary on machines without node at /usr/bin/node.
  const problems = `${result.stdout}${result.stderr}`.split('\n').filter((line) => line.trim() && !/Command \/usr\/bin\/node is not executable|No such file/.test(line));
  t.same(problems, [], 'no complaints');
});
