import type { EventRelationship } from './model.js';

/**
 * Relationships between events of one tenant (issue 27 §5: an incident `contains` events).
 * Every write marks both events on the change set: both bodies show the relationship.
 */
export interface EventRelationshipRepository {
  /** The relationship, or null. */
  find(tenantId: string, fromEventId: string, type: string, toEventId: string): Promise<EventRelationship | null>;
  /** Adds it after the incident's others (ordernum = last + 1). The caller checks it is new. */
  add(tenantId: string, fromEventId: string, type: string, toEventId: string, at: number): Promise<EventRelationship>;
  /** False when there was none. */
  remove(tenantId: string, fromEventId: string, type: string, toEventId: string): Promise<boolean>;
  /** Every relationship either side of which is one of `eventIds`, ordered by ordernum. */
  ofEvents(tenantId: string, eventIds: readonly string[]): Promise<EventRelationship[]>;
  /**
   * Whether `target` is reachable from `start` along `type` (start itself included): adding
   * target → start would close a cycle. Walks at most `maxDepth` levels (deeper is reported reachable).
   */
  reaches(tenantId: string, type: string, start: string, target: string, maxDepth: number): Promise<boolean>;
  /** How many events `fromEventId` relates to by `type`. */
  countFrom(tenantId: string, fromEventId: string, type: string): Promise<number>;
  /** Serialises the tenant's relationship writes until the transaction ends (cycle checks stay true). */
  serialize(tenantId: string): Promise<void>;
}
