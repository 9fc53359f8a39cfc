/**
 * Patrols and segments as the original shows them (CONTRACT §11, issue 27): without our
 * `revision` (the patrol's, each segment's and a subject leader's), and each segment with its
 * `updates` list, which the web app reads to open a patrol (it spreads the first segment's
 * `updates` into the patrol's history: absent, the page breaks).
 *
 * NOTE (decision): a segment's `updates` is `[]`. Every change of a patrol, its segments'
 * included, is recorded once in the patrol's `updates`; listing those lines again under the
 * segment would show each twice in the app's history.
 */
type Entry = Record<string, unknown>;

const isRecord = (value: unknown): value is Entry => value !== null && typeof value === 'object' && !Array.isArray(value);

/** A record without its top-level `revision` (nested `revision` keys are the tenant's data). */
export function withoutRevision(record: unknown): unknown {
  if (!isRecord(record) || !Object.hasOwn(record, 'revision')) return record;
  const { revision: _revision, ...rest } = record;
  return rest;
}

export function originalSegment(segment: unknown): unknown {
  const bare = withoutRevision(segment);
  if (!isRecord(bare)) return bare;
  return {
    ...bare,
    ...(isRecord(bare.leader) ? { leader: withoutRevision(bare.leader) } : {}),
    updates: Array.isArray(bare.updates) ? bare.updates : [],
  };
}

export function originalPatrol(patrol: unknown): unknown {
  const bare = withoutRevision(patrol);
  if (!isRecord(bare) || !Array.isArray(bare.patrol_segments)) return bare;
  return { ...bare, patrol_segments: bare.patrol_segments.map(originalSegment) };
}
