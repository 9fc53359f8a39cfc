import { parseChoiceReference } from '../../../schema/index.js';
import { type Principal, hasPermission } from '../context.js';
import { NotAllowedError } from '../errors.js';
import type { Permission } from '../permissions.js';
import type { Store } from '../ports.js';

/** The schema-carrying catalogs, and the permission that lets a caller read their schemas. */
const TYPE_CATALOGS = [
  { catalog: 'eventtypes', permission: 'view_eventtype', repository: 'eventTypes' },
  { catalog: 'patroltypes', permission: 'view_patroltype', repository: 'patrolTypes' },
] as const satisfies ReadonlyArray<{ catalog: string; permission: Permission; repository: string }>;

/** Tenants × catalogs whose referenced lists are kept (each entry is a set of list names). */
const CACHE_ENTRIES = 1024;

/**
 * Who may read a choice list (CONTRACT §4 as decided for issue 13): `view_choice`, or the right
 * to view a type whose schema references the list (`view_eventtype` for event types,
 * `view_patroltype` for patrol types: whoever may read such a schema may read its choices, so a
 * pre-rendered schema never shows less than the plain one would lead to). Nothing else: an
 * application with no permissions (a public client id) reads no list.
 *
 * The lists a catalog references are derived from its stored schemas once per catalog version
 * (any write to a type moves it), so deciding costs one version read.
 */
export class ChoiceReadAccess {
  private readonly cache = new Map<string, { version: number; fields: ReadonlySet<string> }>();

  constructor(private readonly deps: { store: Store }) {}

  /** Throws NotAllowedError (403) unless the principal may read every one of `fields`. */
  async require(principal: Principal, fields: readonly string[]): Promise<void> {
    if (hasPermission(principal, 'view_choice')) return;
    const viewable = TYPE_CATALOGS.filter(({ permission }) => hasPermission(principal, permission));
    const missing = new Set(fields);
    for (const entry of viewable) {
      if (missing.size === 0) break;
      const referenced = await this.referencedLists(principal.tenantId, entry);
      for (const field of [...missing]) if (referenced.has(field)) missing.delete(field);
    }
    if (missing.size > 0) {
      throw new NotAllowedError('Reading a choice list needs view_choice, or the right to view a type whose schema references the list.');
    }
  }

  private async referencedLists(tenantId: string, entry: (typeof TYPE_CATALOGS)[number]): Promise<ReadonlySet<string>> {
    const { repos } = this.deps.store;
    const key = `${tenantId}:${entry.catalog}`;
    const { version } = await repos.catalog.version(tenantId, entry.catalog);
    const cached = this.cache.get(key);
    if (cached && cached.version === version) return cached.fields;
    const items = await repos[entry.repository].list(tenantId, { includeInactive: true, updatedSince: null });
    const fields = new Set<string>();
    for (const item of items) collectChoiceLists(item.schema, fields);
    this.cache.delete(key);
    this.cache.set(key, { version, fields });
    if (this.cache.size > CACHE_ENTRIES) this.cache.delete(this.cache.keys().next().value!);
    return fields;
  }
}

/** The choice lists a stored `{json, ui}` document references (linear in its size; unparsable text: none). */
export function collectChoiceLists(schemaText: string, into: Set<string>): void {
  let document: unknown;
  try {
    document = JSON.parse(schemaText);
  } catch {
    return;
  }
  const pending: unknown[] = [document];
  while (pending.length > 0) {
    const value = pending.pop();
    if (Array.isArray(value)) {
      pending.push(...value);
    } else if (value && typeof value === 'object') {
      for (const [key, inner] of Object.entries(value)) {
        if (key === '$ref' && typeof inner === 'string') {
          for (const field of parseChoiceReference(inner)?.fields ?? []) into.add(field);
        } else if (inner && typeof inner === 'object') {
          pending.push(inner);
        }
      }
    }
  }
}
