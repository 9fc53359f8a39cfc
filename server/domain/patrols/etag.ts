/**
 * The version of a patrol for optimistic concurrency (issue 16): a strong ETag over the patrol's
 * own fields and its segments (what PATCH/PUT change), so a note or a file added meanwhile does
 * not make an offline "end this patrol" stale. It is served on the patrol detail and on write
 * answers, and checked by `If-Match` on PATCH/PUT inside the write's transaction.
 * NOTE: specification rule 8 lists patrols among the resources without validators; issue 16 asks
 * for this one (the patrol detail only; lists, segments and notes still carry none). Unlike the
 * service's cache validators it never answers If-None-Match with 304: notes and files are in the
 * representation but not in the version, so a 304 could hide them.
 */
import { createHash } from 'node:crypto';
import type { Patrol, PatrolSegment, PatrolView } from './model.js';


/**
 * NOTE: `updatedAt` is left out: a note or a file moves the patrol's `updated_at` (issue 25 (c),
 * so that `updated_since` readers see it), and by the contract above it must not move this tag.
 * Every write that changes a field or a segment still changes the tag.
 */
export function patrolEtag(patrol: Patrol, segments: readonly PatrolSegment[]): string {
  const { window: _window, updatedAt: _updatedAt, ...fields } = patrol;
  const parts = [...segments].sort((a, b) => a.id.localeCompare(b.id));
  const digest = createHash('sha256').update(JSON.stringify([fields, parts])).digest('base64url').slice(0, 27);
  return `"p${digest}"`;
}

export const patrolViewEtag = (view: PatrolView): string => patrolEtag(view.patrol, view.segments.map((s) => s.segment));
