import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { repoRoot } from './processes.js';

/**
 * The "before" of a before/after benchmark: the tree of an older commit, built in a temporary
 * directory beside this checkout (sharing its node_modules), so both builds are measured in one
 * run on the same machine. Built once per commit and kept in the temp dir. `ref` defaults to main
 * as the last write-path work of issue 17 (items 3 and 4) started from; pass `--before <ref>` to
 * the benchmarks to change it (8bd4f79 is the start of issue 17).
 */
export const DEFAULT_BEFORE = 'c4b84fb';

export function buildBaseline(ref: string = DEFAULT_BEFORE): { commit: string; root: string; bin: string } {
  const commit = execFileSync('git', ['rev-parse', '--verify', `${ref}^{commit}`], { cwd: repoRoot, encoding: 'utf8' }).trim();
  const root = path.join(os.tmpdir(), `fieldops-baseline-${commit.slice(0, 12)}`);
  const bin = path.join(root, 'bin/fieldops.js');
  if (fs.existsSync(path.join(root, 'dist/cli/main.js'))) return { commit, root, bin };
  fs.rmSync(root, { recursive: true, force: true });
  fs.mkdirSync(root, { recursive: true });
  process.stderr.write(`building the baseline ${commit.slice(0, 12)} in ${root}...\n`);
  const archive = execFileSync('git', ['archive', '--format=tar', commit], { cwd: repoRoot, maxBuffer: 1 << 30 });
  execFileSync('tar', ['-x', '-C', root], { input: archive });
  fs.symlinkSync(path.join(repoRoot, 'node_modules'), path.join(root, 'node_modules'), 'dir');
  execFileSync(process.execPath, [path.join(repoRoot, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
  return { commit, root, bin };
}
