/**
 * Offline reads of the mirrored patrol types and v2 event types: listing, finding one by value,
 * and pre-rendering its schema with the mirrored choices (the toolkit's local resolver, so the
 * result is what the server's `pre_render=true` would give, without the network).
 */
import type { ChoiceShape, SchemaIssue } from '../../schema/index.js';
import type { ItemResource, MirrorItem, MirrorStore } from '../../sync/mirror/store.js';
import { safeText } from '../../sync/safe-text.js';
import { UserFacingError } from '../errors.js';

export type TypeKind = 'patrol' | 'event';
export const KIND_RESOURCE: Record<TypeKind, ItemResource> = { patrol: 'patrol_types', event: 'event_types' };

export interface TypeEntry {
  kind: TypeKind;
  item: MirrorItem;
}

export async function listTypes(store: MirrorStore, kinds: readonly TypeKind[]): Promise<TypeEntry[]> {
  const entries: TypeEntry[] = [];
  for (const kind of kinds) for (const item of await store.items(KIND_RESOURCE[kind])) entries.push({ kind, item });
  return entries;
}

/** One type by value; a value used by both a patrol type and an event type needs `--kind`. */
export async function findType(store: MirrorStore, value: string, kinds: readonly TypeKind[]): Promise<TypeEntry> {
  const found: TypeEntry[] = [];
  for (const kind of kinds) for (const item of await store.itemsByValue(KIND_RESOURCE[kind], value)) found.push({ kind, item });
  if (found.length === 1) return found[0]!;
  if (found.length === 0) {
    throw new UserFacingError(`no ${kinds.length === 1 ? `${kinds[0]} ` : ''}type "${value}" in the mirror`, 'list them with `fieldops types list --all`; run `fieldops sync` if it was added recently');
  }
  throw new UserFacingError(`"${value}" is both a patrol type and an event type`, 'choose with --kind patrol or --kind event', 2);
}

/**
 * A type to record with offline: as `findType`, but a type deactivated on the server (`is_active`
 * false in the mirror, as the feed or the last sync brought it) is refused, as the server would
 * refuse the record when it is pushed.
 */
export async function findRecordableType(store: MirrorStore, value: string, kind: TypeKind): Promise<TypeEntry> {
  const entry = await findType(store, value, [kind]);
  if (!entry.item.isActive) {
    throw new UserFacingError(`the ${kind} type "${safeText(entry.item.value)}" is deactivated on the server, which refuses new records of it`, `choose an active one (\`fieldops types list --kind ${kind}\`); if it was reactivated, run \`fieldops sync\` first`);
  }
  return entry;
}

export function schemaOf(item: MirrorItem): unknown {
  return item.record.schema ?? null;
}

/** Field names of a schema's `json.properties` (empty for the empty envelope). */
export function fieldNames(schema: unknown): string[] {
  const properties = (schema as { json?: { properties?: unknown } } | null)?.json?.properties;
  return properties && typeof properties === 'object' ? Object.keys(properties) : [];
}

export async function preRenderFromMirror(store: MirrorStore, schema: unknown, shape: ChoiceShape): Promise<{ document: unknown; issues: SchemaIssue[] }> {
  // The schema toolkit (ajv) loads only here: listing types starts faster without it.
  const { createLocalChoiceResolver, groupChoices, preRender, toChoiceRecords } = await import('../../schema/index.js');
  const choices = groupChoices(toChoiceRecords((await store.items('choices')).map((c) => c.record)));
  return preRender(schema, createLocalChoiceResolver(choices), { shape });
}
