/**
 * `npm run bench [-- <name> [options]]`: with no name, lists the benchmarks with the first line
 * of each one's description; with a name, runs `dist/bench/<name>.js` with the options given
 * (each benchmark's own usage line says which it takes). Benchmarks print reports; they never fail a build.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const sources = path.join(here, '../../bench');
const names = fs.readdirSync(here).filter((file) => file.endsWith('.js') && file !== 'run.js').map((file) => file.slice(0, -3)).sort();

/** The first sentence of a benchmark's leading doc comment, from its TypeScript source when the checkout has it. */
function summary(name: string): string {
  const source = path.join(sources, `${name}.ts`);
  if (!fs.existsSync(source)) return '';
  const comment = /^\/\*\*([\s\S]*?)\*\//.exec(fs.readFileSync(source, 'utf8'))?.[1] ?? '';
  const text = comment.split('\n').map((line) => line.replace(/^\s*\*\s?/, '')).join(' ').replace(/\s+/g, ' ').trim();
  return text.split(/(?<=\.)\s/)[0] ?? text;
}

const [name, ...rest] = process.argv.slice(2);
if (!name) {
  process.stdout.write(`Benchmarks (npm run bench -- <name> [options]; each prints its options in its own usage line):\n`);
  for (const each of names) process.stdout.write(`  ${each.padEnd(18)} ${summary(each)}\n`);
} else if (!names.includes(name)) {
  process.stderr.write(`error: no benchmark "${name}"\nhint: one of ${names.join(', ')} (run \`npm run build\` first if the list is empty)\n`);
  process.exitCode = 1;
} else {
  const result = spawnSync(process.execPath, [path.join(here, `${name}.js`), ...rest], { stdio: 'inherit' });
  process.exitCode = result.status ?? 1;
}
