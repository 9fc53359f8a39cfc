import type { EventRelationship } from '../../domain/events/model.js';
import type { EventRelationshipRepository } from '../../domain/events/relationship-ports.js';
import type { Executor } from '../rows.js';
import type { Dialect } from '../knex.js';
import type { ChangeSet } from '../../domain/sync/ports.js';
import { fromDbMillis } from '../time.js';

type Row = Record<string, unknown>;

const toRelationship = (row: Row): EventRelationship => ({
  tenantId: row.tenant_id as string,
  fromEventId: row.from_event_id as string,
  type: row.type as string,
  toEventId: row.to_event_id as string,
  ordernum: row.ordernum === null || row.ordernum === undefined ? null : Number(row.ordernum),
  createdAt: fromDbMillis(row.created_at),
});

/**
 * Relationships between events (issue 27 §5), keyed by tenant. Every write marks both events on
 * the change set: the incident's `contains` and the contained event's `is_contained_in` change.
 */
/** Most ids in one IN list (SQLite's variable limit, and plan sizes). */
const ID_CHUNK = 500;

export class KnexEventRelationshipRepository implements EventRelationshipRepository {
  constructor(
    protected readonly db: Executor,
    protected readonly dialect: Dialect,
    protected readonly changes: ChangeSet,
  ) {}

  async find(tenantId: string, fromEventId: string, type: string, toEventId: string): Promise<EventRelationship | null> {
    const row = await this.db('event_relationships').where({ tenant_id: tenantId, from_event_id: fromEventId, type, to_event_id: toEventId }).first();
    return row ? toRelationship(row) : null;
  }

  async add(tenantId: string, fromEventId: string, type: string, toEventId: string, at: number): Promise<EventRelationship> {
    this.changes.mark('event', tenantId, fromEventId);
    this.changes.mark('event', tenantId, toEventId);
    const last = await this.db('event_relationships').where({ tenant_id: tenantId, from_event_id: fromEventId, type }).max({ n: 'ordernum' }).first();
    const ordernum = last?.n === null || last?.n === undefined ? 1 : Number(last.n) + 1;
    const row = { tenant_id: tenantId, from_event_id: fromEventId, type, to_event_id: toEventId, ordernum, created_at: at };
    await this.db('event_relationships').insert(row);
    return toRelationship(row);
  }

  async remove(tenantId: string, fromEventId: string, type: string, toEventId: string): Promise<boolean> {
    this.changes.mark('event', tenantId, fromEventId);
    this.changes.mark('event', tenantId, toEventId);
    return Number(await this.db('event_relationships').where({ tenant_id: tenantId, from_event_id: fromEventId, type, to_event_id: toEventId }).delete()) > 0;
  }

  async ofEvents(tenantId: string, eventIds: readonly string[]): Promise<EventRelationship[]> {
    if (eventIds.length === 0) return [];
    const ids = [...eventIds];
    const rows = await this.db('event_relationships').where({ tenant_id: tenantId })
      .andWhere((q) => q.whereIn('from_event_id', ids).orWhereIn('to_event_id', ids))
      .orderBy([{ column: 'ordernum' }, { column: 'created_at' }, { column: 'to_event_id' }]);
    return rows.map(toRelationship);
  }

  /** Breadth first, one query per level (per 500 ids of it). */
  async reaches(tenantId: string, type: string, start: string, target: string, maxDepth: number): Promise<boolean> {
    const seen = new Set([start]);
    let frontier = [start];
    for (let depth = 0; frontier.length > 0; depth++) {
      if (frontier.includes(target)) return true;
      if (depth >= maxDepth) return true;
      const next: string[] = [];
      for (let i = 0; i < frontier.length; i += ID_CHUNK) {
        const rows = await this.db('event_relationships').where({ tenant_id: tenantId, type }).whereIn('from_event_id', frontier.slice(i, i + ID_CHUNK)).select('to_event_id');
        for (const row of rows) if (!seen.has(row.to_event_id as string)) (seen.add(row.to_event_id as string), next.push(row.to_event_id as string));
      }
      frontier = next;
    }
    return false;
  }

  async countFrom(tenantId: string, fromEventId: string, type: string): Promise<number> {
    const row = await this.db('event_relationships').where({ tenant_id: tenantId, from_event_id: fromEventId, type }).count({ n: '*' }).first();
    return Number(row?.n ?? 0);
  }

  /**
   * The tenant's relationship writes one at a time until this transaction ends: a cycle check
   * and the insert it allows are not raced by the reverse insert (PostgreSQL's READ COMMITTED;
   * SQLite has one writer already).
   */
  async serialize(tenantId: string): Promise<void> {
    if (this.dialect === 'postgres') await this.db.raw('SELECT pg_advisory_xact_lock(hashtext(?))', [`event_relationships:${tenantId}`]);
  }
}
