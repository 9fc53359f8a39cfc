import { timeOrderedUuid } from '../ids.js';
import type { Observation } from '../model.js';
import type { Repositories } from '../ports.js';
import { statusUpdates } from './intake.js';
import { type ItemIssue, type ObservationInput, readItems, readObservation, throwItemIssues } from './observation-input.js';

/**
 * `POST observations` (the original's, er-client post_observation): one object or an array of
 * `{source, recorded_at, location: {lat, lon}, additional}`, where `source` is a source's id or
 * manufacturer id. Nothing is created on first sight (unlike sensor intake): an unknown source
 * is a 400 for that item. Stored like intake (duplicates of source and recorded_at skipped), each
 * fix attributed to the subject whose assignment covers its time, whose status moves forward.
 */

export interface PostedObservation extends ObservationInput {
  /** The `source` as sent (an id or a manufacturer id). */
  sourceKey: string;
}

/** Validates the body (every issue at once, 400) without reading anything stored. */
export function readPostedObservations(body: unknown): { items: PostedObservation[]; single: boolean } {
  const { items, pointer } = readItems(body);
  const issues: ItemIssue[] = [];
  const read = items.map((raw, index) => {
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return readObservation(raw, index, pointer(index), issues);
    const { source, ...rest } = raw as Record<string, unknown>;
    const before = issues.length;
    // The intake's reader checks everything but the field's name: `source` stands in for `manufacturer_id`.
    const item = readObservation({ ...rest, manufacturer_id: source }, index, pointer(index), issues);
    for (const issue of issues.slice(before)) {
      if (issue.pointer?.endsWith('/manufacturer_id')) {
        issue.pointer = issue.pointer.replace(/manufacturer_id$/, 'source');
        issue.message = issue.message.replaceAll('manufacturer_id', 'source');
      }
    }
    return item && { ...item, sourceKey: item.manufacturerId };
  });
  throwItemIssues(issues, items.length);
  return { items: read.filter((item): item is PostedObservation => item !== null), single: !Array.isArray(body) };
}

/** Inside the caller's transaction: the stored observations, in the order sent, and how many were new. */
export async function storePostedObservations(repos: Repositories, tenantId: string, items: readonly PostedObservation[], now: number): Promise<{ created: number; observations: Observation[] }> {
  const sources = await repos.subjectSources.findSources(tenantId, items.map((item) => item.sourceKey));
  const issues: ItemIssue[] = items
    .filter((item) => !sources.has(item.sourceKey))
    .map((item) => ({ index: item.index, code: 'unknown_source', message: `Item ${item.index}: no source "${item.sourceKey.slice(0, 60)}".`, hints: ['Send a source id or manufacturer id (POST sources creates one).'], pointer: `${item.pointer}/source` }));
  throwItemIssues(issues, items.length);
  const points = items.map((item) => ({ sourceId: sources.get(item.sourceKey)!.id, recordedAt: item.recordedAt }));
  const subjects = await repos.subjectSources.subjectsAt(tenantId, points);
  const observations: Observation[] = items.map((item, i) => ({
    id: timeOrderedUuid(now),
    tenantId,
    sourceId: points[i]!.sourceId,
    subjectId: subjects.get(`${points[i]!.sourceId}\n${item.recordedAt}`) ?? null,
    recordedAt: item.recordedAt,
    latitude: item.latitude,
    longitude: item.longitude,
    additional: item.additional,
    createdAt: now,
  }));
  const created = await repos.observations.insertBatch(observations, statusUpdates(observations, now));
  if (created === observations.length) return { created, observations };
  // Some were stored before (or twice in this body): answer what is stored.
  const stored: Observation[] = [];
  for (const o of observations) {
    const filter = { sourceId: o.sourceId, subjectId: null, since: o.recordedAt, until: o.recordedAt, newestFirst: false };
    stored.push((await repos.observations.list(tenantId, filter, { offset: 0, limit: 1 }))[0] ?? o);
  }
  return { created, observations: stored };
}
