import { CONFLICT_POLICIES, type ConflictPolicy } from '../../../protocol/push.js';
import type { Tenant } from '../../domain/model.js';
import type { TenantRepository } from '../../domain/ports.js';
import type { Executor } from '../rows.js';
import { fromDbMillis } from '../time.js';
import { insertDoneState } from '../sync/tenant-state.js';

interface TenantRow {
  id: string;
  name: string;
  created_at: number | string;
}

const toTenant = (row: TenantRow): Tenant => ({ id: row.id, name: row.name, createdAt: fromDbMillis(row.created_at) });

export class KnexTenantRepository implements TenantRepository {
  constructor(private readonly db: Executor) {}

  async findByName(name: string): Promise<Tenant | null> {
    const row = await this.db<TenantRow>('tenants').where({ name }).first();
    return row ? toTenant(row) : null;
  }

  async insert(tenant: Tenant): Promise<void> {
    await this.db('tenants').insert({ id: tenant.id, name: tenant.name, created_at: tenant.createdAt });
    // A new tenant has nothing written before the change log: its backfill is done already.
    await insertDoneState(this.db, tenant.id);
  }

  /** The tenant's conflict policy (issue 26 §3); `hold` for an unknown value or tenant. */
  async conflictPolicy(tenantId: string): Promise<ConflictPolicy> {
    const row = await this.db('tenants').select('conflict_policy').where({ id: tenantId }).first();
    const policy = row?.conflict_policy as string | undefined;
    return (CONFLICT_POLICIES as readonly string[]).includes(policy ?? '') ? (policy as ConflictPolicy) : 'hold';
  }

  async setConflictPolicy(tenantId: string, policy: ConflictPolicy): Promise<void> {
    await this.db('tenants').where({ id: tenantId }).update({ conflict_policy: policy });
  }

  async count(): Promise<number> {
    const row = await this.db('tenants').count({ n: '*' }).first();
    return Number(row?.n ?? 0);
  }
}
