import type { MessageRepository } from '../../domain/messages/ports.js';
import type { Executor } from '../rows.js';
import type { Dialect } from '../knex.js';
import type { ChangeSet } from '../../domain/sync/ports.js';

/** Issue 27 (step 0 placeholder): filled in by its area. */
export class KnexMessageRepository implements MessageRepository {
  constructor(
    protected readonly db: Executor,
    protected readonly dialect: Dialect,
    protected readonly changes: ChangeSet,
  ) {}
}
