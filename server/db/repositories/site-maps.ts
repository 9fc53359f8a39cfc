import type { SiteMap, SiteMapRepository } from '../../domain/ports.js';
import type { Executor } from '../rows.js';
import { fromDbMillis } from '../time.js';

export class KnexSiteMapRepository implements SiteMapRepository {
  constructor(private readonly db: Executor) {}

  async find(tenantId: string): Promise<SiteMap | null> {
    const row = await this.db('site_maps').where({ tenant_id: tenantId }).first();
    if (!row) return null;
    return {
      id: row.id,
      tenantId: row.tenant_id,
      name: row.name,
      center: [Number(row.center_longitude), Number(row.center_latitude)],
      zoom: Number(row.zoom),
      updatedAt: fromDbMillis(row.updated_at),
    };
  }

  async upsert(map: SiteMap): Promise<void> {
    await this.db('site_maps')
      .insert({ id: map.id, tenant_id: map.tenantId, name: map.name, center_longitude: map.center[0], center_latitude: map.center[1], zoom: map.zoom, updated_at: map.updatedAt })
      .onConflict('tenant_id')
      .merge(['name', 'center_longitude', 'center_latitude', 'zoom', 'updated_at']);
  }
}
