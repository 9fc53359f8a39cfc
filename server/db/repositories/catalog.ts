import { randomUUID } from 'node:crypto';
import type { CatalogName, CatalogVersion, RevisionEntry } from '../../domain/model.js';
import type { CatalogRepository } from '../../domain/ports.js';
import type { Dialect } from '../knex.js';
import { type Executor, jsonColumn, parseJsonColumn } from '../rows.js';
import type { HotReads } from '../hot-reads.js';
import { fromDbMillis } from '../time.js';

type Row = Record<string, unknown>;

const toRevision = (row: Row): RevisionEntry => ({
  id: row.id as string,
  tenantId: row.tenant_id as string,
  catalog: row.catalog as CatalogName,
  itemId: row.item_id as string,
  sequence: Number(row.sequence),
  action: row.action as RevisionEntry['action'],
  time: fromDbMillis(row.time),
  userId: (row.user_id as string | null) ?? null,
  username: (row.username as string | null) ?? null,
  updatedFields: parseJsonColumn<Record<string, unknown> | null>(row.updated_fields, null),
  snapshot: parseJsonColumn<Record<string, unknown> | null>(row.snapshot, null),
  note: (row.note as string | null | undefined) ?? null,
});

export class KnexCatalogRepository implements CatalogRepository {
  constructor(
    private readonly db: Executor,
    private readonly dialect: Dialect,
    private readonly hot?: HotReads,
  ) {}

  async version(tenantId: string, catalog: CatalogName): Promise<CatalogVersion> {
    const row = this.hot ? await this.hot.catalogVersion(tenantId, catalog) : await this.db('catalog_versions').select('version', 'last_modified').where({ tenant_id: tenantId, catalog }).first();
    return row ? { version: fromDbMillis(row.version), lastModified: fromDbMillis(row.last_modified) } : { version: 0, lastModified: 0 };
  }

  async lock(tenantId: string, catalog: CatalogName): Promise<void> {
    await this.db('catalog_versions').insert({ tenant_id: tenantId, catalog, version: 0, last_modified: 0 }).onConflict(['tenant_id', 'catalog']).ignore();
    // NOTE: SQLite has one writer at a time already; FOR UPDATE exists only on PostgreSQL.
    if (this.dialect === 'postgres') await this.db('catalog_versions').where({ tenant_id: tenantId, catalog }).forUpdate().first();
  }

  async bump(tenantId: string, catalog: CatalogName, at: number): Promise<void> {
    await this.db('catalog_versions')
      .insert({ tenant_id: tenantId, catalog, version: 1, last_modified: at })
      .onConflict(['tenant_id', 'catalog'])
      .merge({
        version: this.db.raw('catalog_versions.version + 1'),
        last_modified: this.db.raw('CASE WHEN catalog_versions.last_modified > ? THEN catalog_versions.last_modified ELSE ? END', [at, at]),
      });
  }

  /** Sequences are per item, 1, 2, 3...; callers hold the catalog lock, so max + 1 is safe. */
  async appendRevision(entry: Omit<RevisionEntry, 'sequence'>): Promise<RevisionEntry> {
    const row = await this.db('catalog_revisions').max({ last: 'sequence' }).where({ catalog: entry.catalog, item_id: entry.itemId }).first();
    const sequence = Number(row?.last ?? 0) + 1;
    await this.db('catalog_revisions').insert({
      id: entry.id || randomUUID(),
      tenant_id: entry.tenantId,
      catalog: entry.catalog,
      item_id: entry.itemId,
      sequence,
      action: entry.action,
      time: entry.time,
      user_id: entry.userId,
      username: entry.username,
      updated_fields: entry.updatedFields === null ? null : jsonColumn(entry.updatedFields),
      snapshot: entry.snapshot === null ? null : jsonColumn(entry.snapshot),
      // Issue 28: only when there is one, so that ordinary writes' rows look as before.
      ...(entry.note ? { note: entry.note } : {}),
    });
    return { ...entry, sequence };
  }

  async revisionsUpTo(tenantId: string, catalog: CatalogName, itemId: string, upTo: number): Promise<RevisionEntry[]> {
    const rows = await this.db('catalog_revisions').where({ tenant_id: tenantId, catalog, item_id: itemId }).andWhere('sequence', '<=', upTo).orderBy('sequence', 'asc');
    return rows.map(toRevision);
  }

  async latestSequence(tenantId: string, catalog: CatalogName, itemId: string): Promise<number> {
    const row = await this.db('catalog_revisions').max({ last: 'sequence' }).where({ tenant_id: tenantId, catalog, item_id: itemId }).first();
    return Number(row?.last ?? 0);
  }

  async revisions(tenantId: string, catalog: CatalogName, itemId: string, offset: number, limit: number) {
    const where = { tenant_id: tenantId, catalog, item_id: itemId };
    const count = await this.db('catalog_revisions').count({ n: '*' }).where(where).first();
    const rows = await this.db('catalog_revisions').where(where).orderBy('sequence', 'desc').offset(offset).limit(limit);
    return { total: Number(count?.n ?? 0), entries: rows.map(toRevision) };
  }
}
