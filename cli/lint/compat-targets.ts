/**
 * Which documents of a linted file `--against` compares, and with which event type: a type
 * export (or a list of them) names its type by `value` (and `id`, which finds a renamed type); a
 * bare {json, ui} document by its file name, `<value>.json` or `<value>.v2.json`. Bundles, v1
 * documents and unrecognised files are not compared.
 */
import path from 'node:path';
import { getAtPointer } from '../../schema/index.js';
import { classify, parseLintJson } from './lint-file.js';

export interface CompatTarget {
  /** Pointer of the document inside the file. */
  document: string;
  /** The proposed {json, ui}. */
  after: unknown;
  /** The type's value in the file (or from its name). */
  value: string;
  /** The server id the export carries, if any. */
  id: string | null;
}

/** Bound on type values read from files (the server's own limit on a value is lower). */
const MAX_VALUE = 200;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function valueFromFileName(file: string): string | null {
  const match = /^(.+?)(\.v2)?\.json$/i.exec(path.basename(file));
  return match && match[1]!.length <= MAX_VALUE ? match[1]! : null;
}

export function compatTargets(file: string, text: string): CompatTarget[] {
  const parsed = parseLintJson(text);
  if (!parsed.ok) return [];
  const { kind, documents } = classify(parsed.value);
  const fromName = valueFromFileName(file);
  const targets: CompatTarget[] = [];
  for (const document of documents) {
    if (kind === 'bundle') continue;
    const owner = document === '' ? null : getAtPointer(parsed.value, document.slice(0, document.lastIndexOf('/')));
    const named = isObject(owner) && typeof owner.value === 'string' && owner.value.length <= MAX_VALUE ? owner.value : null;
    const value = named ?? (kind === 'types' ? null : fromName);
    if (!value) continue;
    const id = isObject(owner) && typeof owner.id === 'string' && owner.id.length <= MAX_VALUE ? owner.id : null;
    targets.push({ document, after: getAtPointer(parsed.value, document), value, id });
  }
  return targets;
}
