import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

/**
 * The shipped list of the 1000 most common passwords (common-passwords.txt beside the
 * TypeScript source). Resolved from the package root so that it works from `dist/` too.
 */
export function loadCommonPasswords(): ReadonlySet<string> {
  const text = fs.readFileSync(path.join(packageRoot(), 'server/domain/users/common-passwords.txt'), 'utf8');
  const entries = text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => line.toLowerCase());
  return new Set(entries);
}

/** The directory holding fieldops' package.json (works from the sources and from dist/). */
export function packageRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!fs.existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('package.json not found above ' + fileURLToPath(import.meta.url));
    dir = parent;
  }
  return dir;
}
