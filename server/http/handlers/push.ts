/**
 * `POST /api/fieldops/v1/sync/push` (issue 26 §4; domain/push/service.ts runs the entries).
 *
 * Two steps: admission, before the body is read (a principal's second batch, or more batches
 * than the process runs at once: 429 with Retry-After; nothing waits in a queue), then the
 * handler: more than the maximum of entries is a 429 without Retry-After (it can never fit),
 * then each entry's outcome, with the record presented as its single route answers it.
 */
import type { PushEntry, PushOutcome, PushRequest } from '../../../protocol/push.js';
import { InputError } from '../../domain/errors.js';
import { principalKey } from '../../domain/idempotency/service.js';
import type { EventService } from '../../domain/events/service.js';
import { type Admitted, type PushAdmission, type Refusal, isRefusal } from '../../domain/push/admission.js';
import type { PushValue } from '../../domain/push/dispatch.js';
import type { EntryResult, PushService } from '../../domain/push/service.js';
import { errorBody } from '../error-body.js';
import { MAX_BODY_DEPTH, deeperThan } from '../json-depth.js';
import { crashPoint } from '../../testing/crash-points.js';
import { deviceIdOf } from '../middleware/idempotency.js';
import { presentEvent, presentEventFile, presentEventNote } from './events-presenters.js';
import { presentNote, presentPatrol, presentPatrolFile, presentSegment } from '../presenters-patrols.js';
import { requestOrigin } from '../query.js';
import { presentConflict } from './conflicts.js';
import { type AppContext, type Middleware, requestContext } from '../state.js';

export { MAX_BODY_DEPTH, deeperThan };

const admitted = new WeakMap<AppContext, Admitted>();

/** The route step before the body: a place among the batches running, or a 429. */
export function pushAdmissionStep(admission: PushAdmission): Middleware {
  return async (ctx, next) => {
    const principal = ctx.state.principal;
    if (!principal) return next();
    const ticket = admission.enter(principalKey(principal));
    if (isRefusal(ticket)) return refuse(ctx, ticket);
    admitted.set(ctx, ticket);
    try {
      await next();
    } finally {
      ticket.done();
    }
  };
}

function refuse(ctx: AppContext, refusal: Refusal): void {
  ctx.status = 429;
  if (refusal.reason === 'too_large') {
    const message = `A batch holds at most ${refusal.maxEntries} entries.`;
    ctx.body = errorBody(429, message, { entries: [{ code: 'push_batch_too_large', message, hints: [`Send at most ${refusal.maxEntries} entries per batch.`] }] });
    return;
  }
  ctx.set('Retry-After', String(refusal.retryAfterSeconds));
  const message = refusal.reason === 'principal_busy' ? 'Another batch of yours is running; send this one after it.' : 'The server is running as many batches as it can; retry later.';
  ctx.body = errorBody(429, message, { entries: [{ code: 'push_busy', message, hints: [`Retry after ${refusal.retryAfterSeconds} s.`] }] });
}

export function pushHandlers(deps: { push: PushService; admission: PushAdmission; budgetMs: number; events: EventService; trustProxy: boolean }) {
  return {
    async push(ctx: AppContext) {
      const body = ctx.state.body as PushRequest | undefined;
      if (typeof body !== 'object' || body === null) throw InputError.field('entries', 'required', 'Send a JSON body {"entries": [...]}.', ['Send the outbox entries to push.']);
      const { entries } = body;
      const tooLarge = deps.admission.checkSize(entries.length);
      if (tooLarge) return refuse(ctx, tooLarge);
      const ticket = admitted.get(ctx);
      const startedAt = ticket?.startedAt ?? deps.admission.elapsed(0);
      const overBudget = () => deps.admission.elapsed(startedAt) >= deps.budgetMs;
      const shallow: PushEntry[] = [];
      const deep = new Map<number, PushOutcome>();
      for (const [index, entry] of entries.entries()) {
        if (deeperThan(entry.body, MAX_BODY_DEPTH)) {
          deep.set(index, { key: entry.key, status: 'rejected', http_status: 400, error: { code: 'too_deep', message: `The body nests deeper than ${MAX_BODY_DEPTH} levels.`, field: 'body' } });
        } else shallow.push(entry);
      }
      const principal = ctx.state.principal!;
      const results = await deps.push.run(requestContext(ctx), shallow, { principalKey: principalKey(principal), deviceId: deviceIdOf(ctx), overBudget });
      crashPoint('idempotency.before-answer');
      const origin = requestOrigin(ctx, deps.trustProxy);
      const users = await authorsOf(ctx, deps.events, results);
      const outcomes: PushOutcome[] = [];
      let next = 0;
      for (let index = 0; index < entries.length; index++) {
        outcomes.push(deep.get(index) ?? present(results[next++]!, origin, users));
      }
      ctx.status = 200;
      ctx.body = { outcomes };
    },
  };
}

function present(result: EntryResult, origin: string, users: Awaited<ReturnType<EventService['usersNamed']>>): PushOutcome {
  const record = result.value ? presentValue(result.value, origin, users) : undefined;
  return record ? { ...result.outcome, record } : result.outcome;
}

function presentValue(value: PushValue, origin: string, users: Awaited<ReturnType<EventService['usersNamed']>>): Record<string, unknown> | undefined {
  switch (value.type) {
    case 'event':
      return presentEvent(value.view, origin) as Record<string, unknown>;
    case 'patrol':
      return presentPatrol(value.view, origin) as Record<string, unknown>;
    case 'segment':
      return presentSegment(value.view, origin) as Record<string, unknown>;
    case 'event_note':
      return presentEventNote(value.note, users) as Record<string, unknown>;
    case 'patrol_note':
      return presentNote(value.note) as Record<string, unknown>;
    case 'event_file':
      return presentEventFile(value.file, origin, users) as Record<string, unknown>;
    case 'patrol_file':
      return presentPatrolFile(value.file, origin) as Record<string, unknown>;
    case 'conflict':
      return presentConflict(value.row);
    case 'none':
      return undefined;
  }
}

/** The authors of the event notes and files written (their single routes name them). */
async function authorsOf(ctx: AppContext, events: EventService, results: EntryResult[]) {
  const ids = results.flatMap((result) => (result.value?.type === 'event_note' ? [result.value.note.createdByUserId] : result.value?.type === 'event_file' ? [result.value.file.createdByUserId] : []));
  if (ids.length === 0) return new Map();
  return events.usersNamed(requestContext(ctx), ids).catch(() => new Map());
}

