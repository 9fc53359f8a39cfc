import { readFileSync } from 'node:fs';

/** The package version (compiled, this file is dist/cli/version.js: the package root is two up). */
export function toolVersion(): string {
  try {
    return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  } catch {
    return '0.0.0';
  }
}
