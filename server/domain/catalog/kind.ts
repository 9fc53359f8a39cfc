import type { Permission } from '../permissions.js';
import type { CatalogItem, CatalogName } from '../model.js';
import type { CatalogItemRepository, Repositories } from '../ports.js';

/**
 * What distinguishes one schema-carrying catalog from another. The service, the validators,
 * the schema reads and the history are shared; a kind supplies its storage, its permissions,
 * its body reader and the fields it tracks.
 */
export interface CatalogKind<T extends CatalogItem> {
  catalog: CatalogName;
  /** "patrol type", for messages. */
  label: string;
  repository(repos: Repositories): CatalogItemRepository<T>;
  permissions: { view: Permission[]; add: Permission; change: Permission; delete: Permission };
  /** Parses a write body into the fields present (absent = unchanged); throws InputError. */
  readBody(body: unknown, mode: 'create' | 'replace' | 'patch'): Partial<T>;
  /** A new item from the fields of a create body. */
  newItem(base: CatalogItem, fields: Partial<T>): T;
  /** Fields whose change is recorded in the history, with their API names. */
  tracked: ReadonlyArray<{ field: keyof T & string; apiName: string }>;
  /** Cross-record rules checked before an item is saved (e.g. the category exists); throws InputError. */
  check?(repos: Repositories, tenantId: string, item: T): Promise<void>;
  /** Other catalogs whose changes also change this catalog's list bodies (their versions join the ETag). */
  listDependsOn?: CatalogName[];
  /**
   * Values of the items other records use (v2 event types: those with events), for reads that
   * ask for it (`withUsage`): one bounded query per read. Absent: the kind has no such notion.
   */
  usage?(repos: Repositories, tenantId: string): Promise<string[]>;
}
