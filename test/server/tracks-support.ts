import { randomUUID } from 'node:crypto';
import type { TestServer } from '../helpers/server.js';
import { GPS, epochOf, knexOf, observation, post } from './sensors-support.js';

/** Shared by the tracks-*.test.ts and tracking-export*.test.ts suites. */
export const V1 = '/api/v1.0';

export const iso = (millis: number) => new Date(millis).toISOString().replace('Z', '+00:00');

/** Fixes of a collar at these minutes (sensors-support's clock: 2026-11-20T05:00Z + minute), through the intake. */
export async function fixes(s: TestServer, token: string, collar: string, subjectName: string, minutes: number[], extra: Record<string, unknown> = {}): Promise<void> {
  const response = await post(s, GPS, minutes.map((minute) => observation(collar, minute, { subject_name: subjectName, location: { lat: (((minute % 60) + 60) % 60) / 100, lon: 30 + (((minute % 60) + 60) % 60) / 100 }, ...extra })), token);
  if (response.status >= 300) throw new Error(`intake: ${response.status} ${JSON.stringify(response.body)}`);
}

export async function subjectId(s: TestServer, name: string): Promise<string> {
  return (await knexOf(s)('subjects').where({ name }).first('id')).id as string;
}

export async function sourceId(s: TestServer, manufacturerId: string): Promise<string> {
  return (await knexOf(s)('sensor_sources').where({ manufacturer_id: manufacturerId }).first('id')).id as string;
}

/**
 * Replaces every assignment of these sources with the given ones (minutes as above; upper null:
 * open), whatever the intake made: the tests decide who tracked whom, and when.
 */
export async function assign(s: TestServer, sources: string[], assignments: Array<{ source: string; subject: string; from: number | null; to: number | null }>): Promise<void> {
  const knex = knexOf(s);
  await knex('subject_sources').whereIn('source_id', sources).delete();
  const { tenant_id: tenantId } = await knex('sensor_sources').where({ id: sources[0] }).first('tenant_id');
  for (const a of assignments) {
    await knex('subject_sources').insert({
      id: randomUUID(), tenant_id: tenantId, subject_id: a.subject, source_id: a.source,
      range_lower: a.from === null ? 0 : epochOf(a.from), range_upper: a.to === null ? null : epochOf(a.to),
      additional: '{}', created_at: Date.now(), updated_at: Date.now(),
    });
  }
}
