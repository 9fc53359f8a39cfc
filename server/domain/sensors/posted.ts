import { timeOrderedUuid } from '../ids.js';
import type { Observation } from '../model.js';
import type { Repositories } from '../ports.js';
import { AMBIGUITY_HINTS, ambiguityMessage, chooseSource, isProviderName } from '../subjects/source-choice.js';
import type { SourceRecord } from '../subjects/model.js';
import { statusUpdates } from './intake.js';
import { type ItemIssue, type ObservationInput, readItems, readObservation, throwItemIssues } from './observation-input.js';

/**
 * `POST observations` (the original's, er-client post_observation): one object or an array of
 * `{source, recorded_at, location: {lat, lon}, additional}`, where `source` is a source's id or
 * manufacturer id, and `provider` (optional, a provider key or id) picks among the sources of
 * several providers that share a manufacturer id. Nothing is created on first sight (unlike
 * sensor intake): an unknown source is a 400 for that item, and so is a manufacturer id that
 * still names several sources (never guessed). Stored like intake (duplicates of source and
 * recorded_at skipped), each fix attributed to the subject whose assignment covers its time,
 * whose status moves forward.
 */

export interface PostedObservation extends ObservationInput {
  /** The `source` as sent (an id or a manufacturer id). */
  sourceKey: string;
  /** The `provider` as sent (a provider key or id), or null. */
  provider: string | null;
}

/** Validates the body (every issue at once, 400) without reading anything stored. */
export function readPostedObservations(body: unknown): { items: PostedObservation[]; single: boolean } {
  const { items, pointer } = readItems(body);
  const issues: ItemIssue[] = [];
  const read = items.map((raw, index) => {
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return readObservation(raw, index, pointer(index), issues);
    const { source, provider, ...rest } = raw as Record<string, unknown>;
    const before = issues.length;
    const hasProvider = provider !== undefined && provider !== null;
    if (hasProvider && !isProviderName(provider)) {
      issues.push({ index, code: 'invalid', message: `Item ${index}: provider is a provider key (1 to 100 printable characters) or id.`, hints: [], pointer: `${pointer(index)}/provider` });
    }
    // The intake's reader checks everything but the field's name: `source` stands in for `manufacturer_id`.
    const item = readObservation({ ...rest, manufacturer_id: source }, index, pointer(index), issues);
    for (const issue of issues.slice(before)) {
      if (issue.pointer?.endsWith('/manufacturer_id')) {
        issue.pointer = issue.pointer.replace(/manufacturer_id$/, 'source');
        issue.message = issue.message.replaceAll('manufacturer_id', 'source');
      }
    }
    return item && issues.length === before ? { ...item, sourceKey: item.manufacturerId, provider: hasProvider ? (provider as string) : null } : null;
  });
  throwItemIssues(issues, items.length);
  return { items: read.filter((item): item is PostedObservation => item !== null), single: !Array.isArray(body) };
}

/** Inside the caller's transaction: the stored observations, in the order sent, and how many were new. */
export async function storePostedObservations(repos: Repositories, tenantId: string, items: readonly PostedObservation[], now: number): Promise<{ created: number; observations: Observation[] }> {
  const candidates = await repos.subjectSources.findSourceCandidates(tenantId, items.map((item) => item.sourceKey));
  const issues: ItemIssue[] = [];
  const chosen: SourceRecord[] = [];
  for (const item of items) {
    const choice = chooseSource(candidates.get(item.sourceKey), item.provider);
    if (choice.kind === 'found') chosen.push(choice.source);
    else if (choice.kind === 'ambiguous') {
      issues.push({ index: item.index, code: 'ambiguous_source', message: `Item ${item.index}: ${ambiguityMessage(item.sourceKey, choice.providers)}`, hints: [...AMBIGUITY_HINTS.body], pointer: `${item.pointer}/source` });
    } else {
      const of = item.provider === null ? '' : ` of provider "${item.provider.slice(0, 60)}"`;
      issues.push({ index: item.index, code: 'unknown_source', message: `Item ${item.index}: no source "${item.sourceKey.slice(0, 60)}"${of}.`, hints: ['Send a source id or manufacturer id (POST sources creates one).'], pointer: `${item.pointer}/source` });
    }
  }
  throwItemIssues(issues, items.length);
  const points = items.map((item, i) => ({ sourceId: chosen[i]!.id, recordedAt: item.recordedAt }));
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
