/**
 * Large patrol type catalogs written straight into a test server's database (as bench/catalog.ts
 * does): thousands of API calls would take longer than the test. Every write bumps the catalog
 * version in the same transaction, as the service does, so ETags change exactly as they would.
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { sampleSchema } from './catalog.js';

const SPECIES_REF = '/api/v2.0/schemas/choices.json?field=species';

/** A realistic ~1.3 KB stored schema (already normalised, as the server stores it). */
export function bulkSchema(i: number): string {
  const doc = sampleSchema(`notes_${i % 7}`, SPECIES_REF) as any;
  doc.json.unevaluatedProperties = doc.json.additionalProperties;
  delete doc.json.additionalProperties;
  doc.json.properties.count = { type: 'integer', title: 'Count', minimum: 0, maximum: 500 };
  doc.ui.fields.count = { type: 'NUMBER', inputType: 'NUMBER', parent: 'main' };
  doc.ui.sections.main.rightColumn.push({ name: 'count', type: 'field' });
  return JSON.stringify(doc);
}

export async function bulkInsertPatrolTypes(knex: Knex, count: number, options: { prefix?: string; withSchema?: boolean } = {}): Promise<void> {
  const tenant = await knex('tenants').where({ name: 'default' }).first();
  const now = Date.now();
  const prefix = options.prefix ?? 'bulk';
  const rows = Array.from({ length: count }, (_, i) => ({
    id: randomUUID(), tenant_id: tenant.id, value: `${prefix}-${String(i).padStart(5, '0')}`, display: `Bulk patrol type ${i}`,
    ordernum: i + 1, icon: '', default_priority: [0, 100, 200, 300][i % 4], is_active: true,
    schema: options.withSchema === false ? '{"json":{},"ui":{}}' : bulkSchema(i), revision: 1, created_at: now, updated_at: now,
  }));
  await knex.transaction(async (trx) => {
    await trx.batchInsert('patrol_types', rows, 200);
    await bump(trx, tenant.id, now);
  });
}

/** Renames every type's display (a change to every row). */
export async function bulkRename(knex: Knex, suffix: string): Promise<void> {
  const tenant = await knex('tenants').where({ name: 'default' }).first();
  const now = Date.now() + 1000;
  await knex.transaction(async (trx) => {
    await trx('patrol_types').where({ tenant_id: tenant.id }).update({ display: knex.raw(`display || ?`, [suffix]), updated_at: now, revision: knex.raw('revision + 1') });
    await bump(trx, tenant.id, now);
  });
}

async function bump(trx: Knex.Transaction, tenantId: string, at: number): Promise<void> {
  await trx('catalog_versions')
    .insert({ tenant_id: tenantId, catalog: 'patroltypes', version: 1, last_modified: at })
    .onConflict(['tenant_id', 'catalog'])
    .merge({ version: trx.raw('catalog_versions.version + 1'), last_modified: at });
}
