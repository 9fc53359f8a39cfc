import type { Logger } from 'pino';
import type { Clock } from '../../db/time.js';
import type { Store } from '../ports.js';
import type { PatrolService } from './service.js';
import { PeriodicJob } from '../periodic.js';
import { recordRevision } from '../merge/history.js';

/**
 * The periodic automatic-done sweep: open patrols whose segments have all ended become done,
 * recorded as done by the system. Safe with several server processes on one database: each
 * patrol is completed by a conditional update (still open, still due), so exactly one process
 * wins it and records it: in its updates, and as a revision of device `server` in its history.
 */
export class PatrolSweeper {
  private readonly job = new PeriodicJob(
    () => this.sweepOnce(),
    (error) => this.deps.logger.warn({ err: error }, 'patrol sweep failed; will retry'),
  );

  constructor(private readonly deps: { store: Store; clock: Clock; patrols: PatrolService; logger: Logger }) {}

  /** Completes what is due now; returns how many patrols this process completed. */
  async sweepOnce(batch = 500): Promise<number> {
    const now = this.deps.clock.now();
    let completed = 0;
    for (const { id, tenantId } of await this.deps.store.repos.patrols.dueForCompletion(now, batch)) {
      const won = await this.deps.store.transaction(async (repos) => {
        // The patrols lock orders this bump of the revision after any service write in flight.
        await repos.catalog.lock(tenantId, 'patrols');
        if (!(await repos.patrols.completeIfDue(tenantId, id, now))) return false;
        const patrol = (await repos.patrols.findPatrol(tenantId, id))!;
        await recordRevision(repos, null, { kind: 'patrol', tenantId, id, revision: patrol.revision, base: null, before: new Map([['state', 'open']]), after: new Map([['state', 'done']]), at: now });
        await this.deps.patrols.record(repos, null, patrol, 'update_patrol_state', 'Patrol state changed to done automatically', now);
        return true;
      });
      if (won) completed++;
    }
    return completed;
  }

  start(intervalSeconds: number): void {
    this.job.start(intervalSeconds, false);
  }

  stop(): Promise<void> {
    return this.job.stop();
  }
}
