import type { Store } from '../../domain/ports.js';
import { errorBody } from '../error-body.js';
import type { AppContext } from '../state.js';

export function healthHandlers(store: Store) {
  return {
    /** Liveness: the process answers. No I/O. */
    healthz(ctx: AppContext) {
      ctx.body = { status: 'ok' };
    },

    /** Readiness: the database answers and every migration has run. */
    async readyz(ctx: AppContext) {
      let problem: string | null = null;
      try {
        await store.ping();
        const pending = await store.pendingMigrations();
        if (pending.length > 0) problem = `Pending migrations: ${pending.join(', ')}.`;
      } catch {
        problem = 'The database is unreachable.';
      }
      ctx.set('Cache-Control', 'no-store');
      if (problem) {
        ctx.status = 503;
        ctx.body = errorBody(503, problem);
      } else {
        ctx.body = { status: 'ready' };
      }
    },
  };
}
