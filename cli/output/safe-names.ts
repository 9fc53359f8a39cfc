/**
 * File names built from text we do not control (a server's event type values): a slug of
 * `[a-z0-9_-]`, never empty, and a final check that the path stays inside the output folder.
 */
import path from 'node:path';
import { UserFacingError } from '../errors.js';

export function slug(name: string, fallback = 'unnamed'): string {
  const cleaned = name
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '_')
    .replace(/^[_-]+|[_-]+$/g, '')
    .slice(0, 100);
  return cleaned || fallback;
}

/** `dir/name`, refusing anything that would land outside `dir`. */
export function insideDir(dir: string, name: string): string {
  const root = path.resolve(dir);
  const target = path.resolve(root, name);
  if (path.dirname(target) !== root) throw new UserFacingError(`refusing to write ${name}: it is not a plain file name inside ${root}`, 'this is a bug or a hostile server answer; nothing outside the folder was written');
  return target;
}

/** Distinct slugs for a list of names (a second `a/b` and `a_b` get `-2`). */
export function uniqueSlugs(names: readonly string[]): string[] {
  const used = new Set<string>();
  return names.map((name) => {
    const base = slug(name);
    let candidate = base;
    for (let i = 2; used.has(candidate); i++) candidate = `${base}-${i}`;
    used.add(candidate);
    return candidate;
  });
}
