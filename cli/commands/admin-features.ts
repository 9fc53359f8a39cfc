import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import type { CliIo } from '../main.js';
import { EXIT, UserFacingError } from '../errors.js';
import { InputError } from '../../server/domain/errors.js';
import { type WithRuntime, adminOptions } from './admin-runtime.js';

/** Largest GeoJSON file imported (bytes). */
export const MAX_FILE_BYTES = 50 * 1024 * 1024;

/** Line and column (1-based) of a character offset in `text`. */
function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let start = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    start = i + 1;
  }
  return { line, column: offset - start + 1 };
}

/** JSON.parse with a syntax error reported at `FILE:line:column`. */
function parseJson(file: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    const message = (error as Error).message;
    const match = /position (\d+)/.exec(message) ?? /at (\d+)\b/.exec(message);
    const at = match ? lineColumn(text, Number(match[1])) : lineColumn(text, text.length);
    throw new UserFacingError(`${file}:${at.line}:${at.column}: not valid JSON (${message.replace(/^.*?: /, '').replace(/ in JSON at position \d+.*$/, '')})`, 'a GeoJSON file is one JSON object {"type": "FeatureCollection", "features": [...]}', EXIT.failure, { cause: error });
  }
}

/**
 * `fieldops admin features import FILE [--name NAME]`: a GeoJSON FeatureCollection becomes a
 * feature set of the tenant (the map's `featureset/`); importing a set of the same name again
 * replaces its features. Checked before anything is written; one transaction.
 */
export function registerAdminFeatures(admin: Command, _io: CliIo, withRuntime: WithRuntime): void {
  const features = admin.command('features').description('spatial feature sets shown on the map (featureset/)');
  adminOptions(features.command('import').description('import a GeoJSON FeatureCollection as a feature set (replacing the set of the same name)'))
    .argument('<file>', 'a GeoJSON file (RFC 7946 FeatureCollection, WGS 84)')
    .option('--name <name>', 'feature set name (default: the collection\'s "name", else the file name)')
    .option('--tenant <name>', 'tenant the set belongs to', 'default')
    .action((file: string, options: { name?: string; tenant: string; database?: string; dataDir?: string; create?: boolean; json?: boolean }) => {
      const stat = fs.statSync(file, { throwIfNoEntry: false });
      if (!stat?.isFile()) throw new UserFacingError(`${file}: no such file`, 'give the path of a .geojson file', EXIT.usage);
      if (stat.size > MAX_FILE_BYTES) throw new UserFacingError(`${file}: ${stat.size} bytes; at most ${MAX_FILE_BYTES} are imported at once`, 'split the collection into several files (one feature set each, --name)');
      const collection = parseJson(file, fs.readFileSync(file, 'utf8'));
      const fallbackName = path.basename(file).replace(/\.(geo)?json$/i, '');
      return withRuntime(options, async ({ services }) => {
        let result;
        try {
          const hasName = typeof (collection as { name?: unknown } | null)?.name === 'string';
          result = await services.features.importCollection(options.tenant, collection, options.name ?? (hasName ? null : fallbackName));
        } catch (error) {
          if (!(error instanceof InputError)) throw error;
          const issue = Object.values(error.fields)[0]?.[0];
          throw new UserFacingError(`${file}: ${error.message}`, issue?.hints.join(' ') || undefined, EXIT.failure, { cause: error });
        }
        const { set, features: count, replaced } = result;
        return {
          text: `${replaced ? 'replaced' : 'imported'} feature set ${set.name} of ${options.tenant}: ${count} feature${count === 1 ? '' : 's'} (${set.id})`,
          json: { tenant: options.tenant, featureset: { id: set.id, name: set.name, features: count, replaced } },
        };
      });
    });
}
