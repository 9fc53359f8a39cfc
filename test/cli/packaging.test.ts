/**
 * What `npm pack` puts in the tarball a field laptop installs (`npm install -g
 * ./fieldops-0.1.0.tgz`, cli/README.md): everything running needs (the bin shim, the compiled
 * CLI, server and migrations, the built-in icons, the demo data, the common-password list) and
 * none of the tests, benchmarks, TypeScript sources or source maps. Without package.json
 * `files`, .gitignore would leave dist/ out and the tests in.
 *
 * Runs `npm pack --dry-run --json --ignore-scripts` on the dist/ this suite was built into (the
 * `prepare` build is what `npm pack` would run first). Skips when npm is not available.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { repoRoot } from '../helpers/cli.js';

const run = promisify(execFile);

interface PackedFile { path: string; mode: number }

async function packList(): Promise<PackedFile[] | { skip: string }> {
  try {
    await run('npm', ['--version'], { cwd: repoRoot });
  } catch (error) {
    return { skip: `npm is not available (${(error as Error).message.split('\n')[0]})` };
  }
  const { stdout } = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: repoRoot, maxBuffer: 64 * 1024 * 1024 });
  const [pack] = JSON.parse(stdout) as Array<{ files: PackedFile[] }>;
  return pack!.files;
}

/** Files under `dir` (relative to the repository), recursively. */
function walk(dir: string): string[] {
  const absolute = path.join(repoRoot, dir);
  if (!fs.existsSync(absolute)) return [];
  return fs.readdirSync(absolute, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(repoRoot, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'));
}

t.test('the npm tarball holds what running needs and no tests, benchmarks or sources', async (t) => {
  const files = await packList();
  if ('skip' in files) {
    t.pass(`skipped: ${files.skip}`, { skip: files.skip });
    return;
  }
  const packed = new Set(files.map((file) => file.path));

  for (const needed of ['package.json', 'bin/fieldops.js', 'dist/cli/main.js', 'dist/server/main.js', 'dist/schema/index.js', 'server/domain/users/common-passwords.txt']) {
    t.ok(packed.has(needed), `${needed} is packed`);
  }
  const bin = files.find((file) => file.path === 'bin/fieldops.js');
  t.ok(bin && (bin.mode & 0o111) !== 0, 'bin/fieldops.js is executable');

  // Every migration compiled, both sets (the server's and the CLI mirror's).
  const migrations = walk('migrations').filter((file) => file.endsWith('.ts'));
  t.ok(migrations.length > 2, 'the repository has migrations');
  for (const source of migrations) {
    const compiled = `dist/${source.replace(/\.ts$/, '.js')}`;
    t.ok(packed.has(compiled), `${compiled} is packed`);
  }
  // The built-in icons and the demo data (`serve --demo`) are read from the package at run time.
  const icons = walk('static/icons');
  t.ok(icons.some((file) => file.endsWith('/foot-patrol.svg')), 'the repository has the built-in icons');
  for (const icon of icons) t.ok(packed.has(icon), `${icon} is packed`);
  const demo = walk('fixtures/demo');
  t.ok(demo.length > 0, 'the repository has demo data');
  for (const file of demo) t.ok(packed.has(file), `${file} is packed`);
  // All of the compiled program, not only the entry points.
  const program = ['cli', 'server', 'schema', 'sync', 'migrations'].flatMap((dir) => walk(`dist/${dir}`)).filter((file) => file.endsWith('.js'));
  const missing = program.filter((file) => !packed.has(file));
  t.same(missing, [], 'every compiled module of the program is packed');

  const unwanted = [...packed].filter((file) =>
    /^(dist\/)?(test|bench)\//.test(file) || /\.(test|bench)\.js$/.test(file) || file.endsWith('.map') || file.endsWith('.tsbuildinfo') || /\.tsx?$/.test(file));
  t.same(unwanted, [], 'no tests, benchmarks, TypeScript sources or source maps');
});
