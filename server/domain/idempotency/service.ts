/**
 * Reads and answers of idempotency keys, outside the write's transaction (the claim itself is
 * written by claim-hook.ts inside it). Knows no HTTP: the route step shapes the answers.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { Principal } from '../context.js';
import type { WriteScope } from '../write-scope.js';
import type { IdempotencyRepository, StoredAnswer, StoredKey } from './ports.js';

/** Answers larger than this are not stored: a replay then re-renders the record instead. */
export const MAX_STORED_ANSWER_BYTES = 256 * 1024;
/** How long a request that lost the race waits for its twin's answer before re-rendering. */
const TWIN_WAIT_MS = 5000;
const TWIN_POLL_MS = 25;

/** Whose keys these are: keys of different principals never meet. */
export function principalKey(principal: Principal): string {
  return principal.kind === 'user' ? `user:${principal.user.id}` : `client:${principal.client.clientId}`;
}

export class IdempotencyService {
  constructor(private readonly deps: { repository: IdempotencyRepository; clock: { now(): number } }) {}

  find(scope: WriteScope, key: string): Promise<StoredKey | null> {
    return this.deps.repository.find(scope.tenantId, scope.principalKey, key);
  }

  /**
   * The stored key once its answer is there, waiting a little when the claim is committed but
   * its request has not stored the answer yet (a twin that is still answering).
   */
  async settled(scope: WriteScope, key: string, first: StoredKey): Promise<StoredKey> {
    let stored = first;
    // A claim older than the wait has no answer coming (its request ended without storing one:
    // the server stopped, or the answer could not be kept): re-read at once, never poll again.
    if (this.deps.clock.now() - first.createdAt > TWIN_WAIT_MS) return stored;
    for (let waited = 0; stored.state === 'committed' && waited < TWIN_WAIT_MS; waited += TWIN_POLL_MS) {
      await delay(TWIN_POLL_MS);
      stored = (await this.find(scope, key)) ?? stored;
    }
    return stored;
  }

  /** Stores the answer of the request whose write committed the claim; false when not stored (too large). */
  async storeAnswer(scope: WriteScope, key: string, answer: StoredAnswer): Promise<boolean> {
    const size = answer.body === undefined ? 0 : Buffer.byteLength(JSON.stringify(answer.body));
    if (size > MAX_STORED_ANSWER_BYTES) {
      // Said, so that a replay re-reads the record at once instead of waiting for an answer.
      await this.deps.repository.unstored(scope.tenantId, scope.principalKey, key);
      return false;
    }
    await this.deps.repository.answer(scope.tenantId, scope.principalKey, key, answer, scope.outcome?.revision ?? revisionOf(answer.body));
    return true;
  }

  /** The stored keys among `keys` of the scope's principal. */
  findMany(scope: Pick<WriteScope, 'tenantId' | 'principalKey'>, keys: readonly string[]) {
    return this.deps.repository.findMany(scope.tenantId, scope.principalKey, keys);
  }

  /** A batch entry's outcome, once its write committed (the batch answers it; a replay repeats it). */
  storeOutcome(scope: Pick<WriteScope, 'tenantId' | 'principalKey'>, key: string, outcome: unknown, recordRevision: number | null): Promise<void> {
    return this.deps.repository.storeOutcome(scope.tenantId, scope.principalKey, key, outcome, recordRevision);
  }
}

/** The `revision` of a single route's answer (events, patrols, segments in the fieldops shape), if any. */
function revisionOf(body: unknown): number | null {
  const revision = typeof body === 'object' && body !== null ? (body as { revision?: unknown }).revision : undefined;
  return typeof revision === 'number' && Number.isInteger(revision) ? revision : null;
}
