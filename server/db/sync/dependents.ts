/**
 * Reads behind the hook's fan-out (server/domain/sync/ports.ts SyncRepository.dependents; the
 * old keys it compares are members.ts): a record's keys can derive from another record (a
 * patrol's teams from its leaders' groups, an event's teams from its patrols' leaders, its
 * category from its type).
 * Every query is bound to the tenant.
 */
import type { DependentKind } from '../../domain/sync/ports.js';
import { isUuid } from '../../domain/ids.js';
import type { Executor } from '../rows.js';
import { chunks, FACT_CHUNK } from './facts.js';

type Row = Record<string, unknown>;

export async function dependents(db: Executor, postgres: boolean, tenantId: string, kind: DependentKind, ids: readonly string[], categoryKey: (category: string) => string | null): Promise<string[]> {
  const out = new Set<string>();
  // NOTE: an id no uuid column can hold has no dependents (and must not reach PostgreSQL's uuid comparison).
  const valid = postgres ? ids.filter(isUuid) : ids;
  for (const chunk of chunks([...new Set(valid)], FACT_CHUNK)) {
    let rows: Row[];
    if (kind === 'subject') {
      rows = await db('patrol_segments').where({ tenant_id: tenantId, leader_type: 'observations.subject' }).whereIn('leader_id', chunk).distinct('patrol_id as id');
    } else if (kind === 'patrol') {
      rows = await db('segment_events as se')
        .join('patrol_segments as s', function () {
          this.on('s.tenant_id', 'se.tenant_id').andOn('s.id', 'se.segment_id');
        })
        .where('se.tenant_id', tenantId)
        .whereIn('s.patrol_id', chunk)
        .distinct('se.event_id as id');
    } else {
      rows = [];
      // Only types that have events (a bulk import of new types costs one statement per chunk).
      const types = (await db('event_types as t')
        .where('t.tenant_id', tenantId)
        .whereIn('t.id', chunk)
        .whereExists(db('events as e').select(db.raw('1')).whereRaw('e.tenant_id = t.tenant_id AND e.event_type = t.value'))
        .select('t.value', 't.category')) as Row[];
      for (const type of types) {
        rows.push(...(await eventsOffCategory(db, postgres, tenantId, String(type.value), categoryKey(String(type.category ?? '')))));
      }
    }
    for (const row of rows) out.add(String(row.id));
  }
  return [...out].sort();
}

/** The type's events whose category key is not `key` (null: the events must have none). */
function eventsOffCategory(db: Executor, postgres: boolean, tenantId: string, value: string, key: string | null): Promise<Row[]> {
  if (postgres) {
    // NOTE: one index probe per event, forced (a LATERAL subquery with LIMIT is never flattened
    // into a join). As an anti-join, with statistics from before the members existed (an
    // upgrade's backfill marking event types), PostgreSQL read every member of the kind per
    // event: 168 s for 20 types of 20,000 events (see tenant-state.ts loggedAmong).
    const probe = key === null
      ? "SELECT 1 AS hit FROM sync_members m WHERE m.tenant_id = ? AND m.kind = 'event' AND m.record_id = CAST(e.id AS text) AND left(m.scope_key, 7) = 'ev:cat:' LIMIT 1"
      : "SELECT 1 AS hit FROM sync_members m WHERE m.tenant_id = ? AND m.scope_key = ? AND m.kind = 'event' AND m.record_id = CAST(e.id AS text) LIMIT 1";
    return db('events as e')
      .joinRaw(`LEFT JOIN LATERAL (${probe}) AS x ON true`, key === null ? [tenantId] : [tenantId, key])
      .where({ 'e.tenant_id': tenantId, 'e.event_type': value })
      .whereRaw(key === null ? 'x.hit IS NOT NULL' : 'x.hit IS NULL')
      .select('e.id');
  }
  const member = db('sync_members as m')
    .select(db.raw('1'))
    .where('m.tenant_id', tenantId)
    .andWhere('m.kind', 'event')
    .whereRaw(postgres ? 'm.record_id = CAST(e.id AS text)' : 'm.record_id = e.id');
  const query = db('events as e').where({ 'e.tenant_id': tenantId, 'e.event_type': value }).select('e.id');
  if (key === null) return query.whereExists(member.andWhere('m.scope_key', 'like', 'ev:cat:%'));
  return query.whereNotExists(member.andWhere('m.scope_key', key));
}
