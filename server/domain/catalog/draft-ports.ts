import type { CatalogName } from '../model.js';

/**
 * Issue 28: a draft `{json, ui}` of one catalog item, kept apart from the item (table
 * `catalog_drafts`): nothing that reads items (list, detail, sync, history) reads drafts.
 */
export interface CatalogDraft {
  tenantId: string;
  catalog: CatalogName;
  itemId: string;
  /** The normalised document text, as an item's `schema`. */
  schema: string;
  /** The item's latest history sequence when the draft was written. */
  basedOnSequence: number;
  updatedAt: number;
  updatedByUserId: string | null;
  updatedByUsername: string | null;
}

export interface CatalogDraftRepository {
  get(tenantId: string, catalog: CatalogName, itemId: string): Promise<CatalogDraft | null>;
  /** Inserts or replaces the item's one draft. */
  put(draft: CatalogDraft): Promise<void>;
  /** False when there was none. */
  delete(tenantId: string, catalog: CatalogName, itemId: string): Promise<boolean>;
}
