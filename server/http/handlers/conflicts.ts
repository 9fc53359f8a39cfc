import type { ConflictService, RecordHistory } from '../../domain/merge/conflicts.js';
import type { ConflictRow, RevisionRow } from '../../domain/merge/ports.js';
import { requestContext, type AppContext } from '../state.js';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
const param = (ctx: AppContext, name: string) => String((ctx.params as Record<string, string>)[name] ?? '');
const query = (ctx: AppContext, name: string) => {
  const value = ctx.query[name];
  return typeof value === 'string' ? value : Array.isArray(value) ? value[value.length - 1] : undefined;
};

/** A conflict on the wire (schemas/conflicts.ts `Conflict`). */
export function presentConflict(row: ConflictRow): Record<string, unknown> {
  return {
    id: row.id, kind: row.kind, record: row.recordId, field: row.field, base: row.base ?? null, mine: row.mine ?? null, theirs: row.theirs ?? null,
    status: row.status, policy: row.policy, settled_by: row.settledBy, base_revision: row.baseRevision, theirs_revision: row.theirsRevision,
    revision: row.revision, settled_revision: row.settledRevision, device: row.deviceId, user: row.userId, settled_user: row.settledUserId,
    created_at: iso(row.createdAt), settled_at: iso(row.settledAt),
  };
}

function presentRevision(row: RevisionRow, conflicts: readonly ConflictRow[]): Record<string, unknown> {
  return {
    revision: row.revision, action: row.action, base_revision: row.baseRevision, fields: row.fields, merged: row.merged,
    conflicts: conflicts.filter((conflict) => conflict.revision === row.revision).map((conflict) => conflict.id),
    user: row.userId, client: row.clientId, device: row.deviceId, at: iso(row.at),
  };
}

function presentHistory(history: RecordHistory): Record<string, unknown> {
  return {
    kind: history.kind, id: history.id, revision: history.revision,
    revisions: history.revisions.map((row) => presentRevision(row, history.conflicts)),
    conflicts: history.conflicts.map(presentConflict),
  };
}

/** `GET …/conflicts`, `POST …/conflicts/:id/resolve`, `GET …/records/:kind/:id/history` (issue 26 §3). */
export function conflictHandlers(deps: { conflicts: ConflictService }) {
  return {
    async list(ctx: AppContext) {
      const rows = await deps.conflicts.list(requestContext(ctx), { status: query(ctx, 'status'), kind: query(ctx, 'kind'), record: query(ctx, 'record') });
      ctx.body = { conflicts: rows.map(presentConflict) };
    },
    async resolve(ctx: AppContext) {
      ctx.body = presentConflict(await deps.conflicts.resolve(requestContext(ctx), param(ctx, 'id'), ctx.state.body));
    },
    async history(ctx: AppContext) {
      ctx.body = presentHistory(await deps.conflicts.history(requestContext(ctx), param(ctx, 'kind'), param(ctx, 'id')));
    },
  };
}
