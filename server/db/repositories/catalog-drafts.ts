import type { CatalogDraft, CatalogDraftRepository } from '../../domain/catalog/draft-ports.js';
import type { CatalogName } from '../../domain/model.js';
import type { Executor } from '../rows.js';
import { fromDbMillis } from '../time.js';

type Row = Record<string, unknown>;

const toDraft = (row: Row): CatalogDraft => ({
  tenantId: row.tenant_id as string,
  catalog: row.catalog as CatalogName,
  itemId: row.item_id as string,
  schema: row.schema as string,
  basedOnSequence: Number(row.based_on_sequence),
  updatedAt: fromDbMillis(row.updated_at),
  updatedByUserId: (row.updated_by_user_id as string | null) ?? null,
  updatedByUsername: (row.updated_by_username as string | null) ?? null,
});

/** Issue 28: schema drafts (one per item); every query is by tenant, catalog and item. */
export class KnexCatalogDraftRepository implements CatalogDraftRepository {
  constructor(private readonly db: Executor) {}

  async get(tenantId: string, catalog: CatalogName, itemId: string): Promise<CatalogDraft | null> {
    const row = await this.db('catalog_drafts').where({ tenant_id: tenantId, catalog, item_id: itemId }).first();
    return row ? toDraft(row) : null;
  }

  async put(draft: CatalogDraft): Promise<void> {
    const row = {
      tenant_id: draft.tenantId,
      catalog: draft.catalog,
      item_id: draft.itemId,
      schema: draft.schema,
      based_on_sequence: draft.basedOnSequence,
      updated_at: draft.updatedAt,
      updated_by_user_id: draft.updatedByUserId,
      updated_by_username: draft.updatedByUsername,
    };
    await this.db('catalog_drafts').insert(row).onConflict(['tenant_id', 'catalog', 'item_id']).merge();
  }

  async delete(tenantId: string, catalog: CatalogName, itemId: string): Promise<boolean> {
    const removed = await this.db('catalog_drafts').where({ tenant_id: tenantId, catalog, item_id: itemId }).delete();
    return Number(removed) > 0;
  }
}
