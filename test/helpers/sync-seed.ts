/** A small catalog on a test server for the sync tests: choices, patrol types, an event type, leaders. */
import { TYPES, createType, sampleSchema, send } from './catalog.js';
import type { TestServer } from './server.js';

export const CHOICES = '/api/v2.0/choices';
export const EVENT_TYPES = '/api/v2.0/activity/eventtypes';
export const SPECIES_REF = '/api/v2.0/schemas/choices.json?field=species';

export async function seedCatalog(s: TestServer, token: string) {
  const choices: Record<string, string> = {};
  for (const [value, display, ordernum] of [['elephant', 'Elephant', 10], ['lion', 'Lion', 20], ['rhino', 'Rhino', 30]] as const) {
    const created = await s.json(CHOICES, send('POST', { field: 'species', value, display, ordernum }, token));
    if (created.status !== 201) throw new Error(`choice: ${created.status} ${JSON.stringify(created.body)}`);
    choices[value] = created.body.id;
  }
  const fence = await createType(s, token, { value: 'fence_patrol', display: 'Fence patrol', default_priority: 100, schema: sampleSchema('notes', SPECIES_REF) });
  const foot = await createType(s, token, { value: 'foot_patrol', display: 'Foot patrol', schema: sampleSchema('remarks') });
  const aerial = await createType(s, token, { value: 'aerial_patrol', display: 'Aerial patrol', default_priority: 200 });
  await s.json('/api/v2.0/activity/eventcategories', send('POST', { value: 'monitoring', display: 'Monitoring' }, token));
  const event = await s.json(EVENT_TYPES, send('POST', { value: 'wildlife_sighting', display: 'Wildlife sighting', category: 'monitoring', geometry_type: 'Point', schema: sampleSchema('notes', SPECIES_REF) }, token));
  if (event.status !== 201) throw new Error(`event type: ${event.status} ${JSON.stringify(event.body)}`);
  const tenant = (await s.server.runtime.store.repos.tenants.findByName('default'))!;
  const { subjects } = s.server.runtime.services;
  await subjects.create(tenant.id, { name: 'Ranger Amani', groups: [{ name: 'Rangers north', patrolLeaders: true }] });
  return { choices, fence, foot, aerial, eventType: event.body, tenantId: tenant.id, subjects };
}

export { TYPES };
