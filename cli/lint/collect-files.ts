/**
 * Expands `fieldops lint` arguments: a file is linted whatever its content; a directory means
 * every `*.json` below it (not `node_modules` or dot-folders); anything else is a glob. A
 * pattern or directory that matches nothing is a usage error, as in ESLint: a typo in a CI
 * script must not pass as "no problems".
 */
import fs from 'node:fs';
import path from 'node:path';
import { globSync } from 'tinyglobby';
import { UserFacingError } from '../errors.js';

export interface LintTarget {
  path: string;
  /** Named on the command line (content that is no document is then an error, not a skip). */
  explicit: boolean;
}

const IGNORE = ['**/node_modules/**', '**/.*/**'];

export function collectFiles(args: readonly string[], cwd = process.cwd()): LintTarget[] {
  const targets = new Map<string, LintTarget>();
  const add = (file: string, explicit: boolean) => {
    const absolute = path.resolve(cwd, file);
    const existing = targets.get(absolute);
    if (!existing || (explicit && !existing.explicit)) targets.set(absolute, { path: absolute, explicit });
  };
  for (const arg of args) {
    const absolute = path.resolve(cwd, arg);
    const stat = fs.statSync(absolute, { throwIfNoEntry: false });
    if (stat?.isFile()) {
      add(absolute, true);
      continue;
    }
    const matches = stat?.isDirectory()
      ? globSync('**/*.json', { cwd: absolute, absolute: true, ignore: IGNORE })
      : globSync(arg, { cwd, absolute: true, ignore: IGNORE, onlyFiles: true });
    if (matches.length === 0) {
      throw new UserFacingError(
        stat?.isDirectory() ? `no *.json files in ${arg}` : `no files match ${JSON.stringify(arg)}`,
        stat ? undefined : 'check the path; quote globs so that fieldops expands them (e.g. "schemas/**/*.json")',
        2,
      );
    }
    for (const match of matches) add(match, false);
  }
  return [...targets.values()].sort((a, b) => a.path.localeCompare(b.path));
}

export { displayPath } from '../output/paths.js';
