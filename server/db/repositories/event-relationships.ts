import type { EventRelationshipRepository } from '../../domain/events/relationship-ports.js';
import type { Executor } from '../rows.js';
import type { Dialect } from '../knex.js';
import type { ChangeSet } from '../../domain/sync/ports.js';

/** Issue 27 (step 0 placeholder): filled in by its area. */
export class KnexEventRelationshipRepository implements EventRelationshipRepository {
  constructor(
    protected readonly db: Executor,
    protected readonly dialect: Dialect,
    protected readonly changes: ChangeSet,
  ) {}
}
