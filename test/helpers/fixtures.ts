import fs from 'node:fs';
import path from 'node:path';
import { repoRoot } from './cli.js';

/** The project's own fixtures (never ../shared). */
export function fixtureText(relative: string): string {
  return fs.readFileSync(path.join(repoRoot, 'fixtures', relative), 'utf8');
}

export function fixtureJson<T = any>(relative: string): T {
  return JSON.parse(fixtureText(relative)) as T;
}

/** The shared corpus, when this checkout has one beside it; null (and the caller skips) otherwise. */
export function sharedDir(): string | null {
  const dir = process.env.FIELDOPS_SHARED_DIR ?? path.join(repoRoot, '..', 'shared');
  return fs.existsSync(dir) ? dir : null;
}
