import fs from 'node:fs';
import t from 'tap';
import type { Page, Response } from 'playwright-core';
import { dialect, jsonBody } from '../helpers/server.js';
import { type Explained4xx, checkCalls, logIn, startWebSession } from './web-session.js';
import { serveMapOffline } from './offline-map.js';

/**
 * Every 4xx the app is allowed to meet on this walk, with the reason. Anything else fails.
 */
const EXPLAINED_4XX: Explained4xx[] = [
  { pattern: /^GET \/api\/v1\.0\/user\/eula/, status: 401, why: 'the login page asks whether a EULA must be accepted before anyone has logged in' },
];

/** Where the seeded subjects stand (lon, lat) and move from: around the site's map centre. */
const COLLARS = [
  { manufacturerId: 'OPS-COLLAR-A', name: 'Tembo', subtype: 'elephant', start: [36.70, -1.24] as const, step: [0.004, -0.002] as const },
  { manufacturerId: 'OPS-COLLAR-B', name: 'Kali', subtype: 'elephant', start: [36.92, -1.36] as const, step: [-0.003, 0.003] as const },
];
const GROUP = 'Ops collars';
const MESSAGE_TEXT = 'Herd crossing the river road';
const INCIDENT_TITLE = 'Snaring incident at the river';
const PATROL_TITLE = 'Gate 7 check';
const USER = { username: 'opsroom', password: 'Demo-Kudu-Watch-Desk-2026' };
const PERMISSIONS = [
  'view_patroltype', 'view_patrol', 'add_patrol', 'change_patrol', 'view_subject', 'view_eventtype', 'view_choice', 'view_event', 'add_event', 'change_event',
  'view_observation', 'view_source', 'view_message', 'add_message', 'change_message', 'view_feature', 'export_event', 'export_observation',
];

/** The Data Export menu's items (das-web-react GlobalMenuDrawer) and what each must download. */
const EXPORTS = [
  { title: 'Subject KML', path: '/api/v1.0/subjects/kml/root', kind: 'kml' },
  { title: 'Subject Summary', path: '/api/v1.0/trackingmetadata/export', kind: 'csv' },
  { title: 'Observations', path: '/api/v1.0/trackingdata/export', kind: 'csv' },
  { title: 'Field Events', path: '/api/v1.0/activity/events/export', kind: 'csv' },
] as const;

/**
 * The public EarthRanger web app on fieldops as an operations room uses it, after collar
 * positions, events, an incident and a message were posted through our own API: the map's
 * subjects (their images load), a subject's popup and track, the events drawn on the map,
 * opening and starting patrols, every Data Export item, and the messages menu.
 */
// The walk reloads the app for each export; on a loaded 2-core machine it nears tap's 180 s default.
t.setTimeout(420_000);

t.test(`the EarthRanger web app's map, exports and messages on fieldops, in Chromium (${dialect})`, async (t) => {
  const session = await startWebSession(t);
  if (!session) return;
  const { s, page, shot } = session;
  const { runtime } = s.server;
  // The machine is shared and slow: the app's clicks and loads get room.
  page.setDefaultTimeout(90000);
  const responses = recordResponses(page);
  // Mapbox (a third party) answered locally, so that the map finishes loading and draws.
  const mapbox = await serveMapOffline(page, session.origin.url);
  const admin = (await s.login()).access_token;
  const unwrap = (body: any) => body?.data ?? body;
  const seeded = { subjects: new Map<string, string>(), events: [] as string[], incident: null as string | null };

  await t.test('seed collar positions through the sensor intake, and an operations-room user', async (t) => {
    const now = Date.now();
    // Six fixes an hour apart for each collar, the newest ten minutes ago.
    const fixes = COLLARS.flatMap((collar) =>
      Array.from({ length: 6 }, (_, i) => ({
        manufacturer_id: collar.manufacturerId,
        subject_name: collar.name,
        subject_subtype: collar.subtype,
        subject_groups: [GROUP],
        recorded_at: new Date(now - 600_000 - (5 - i) * 3600_000).toISOString(),
        location: { lon: collar.start[0] + collar.step[0] * i, lat: collar.start[1] + collar.step[1] * i },
      })),
    );
    const intake = await s.json('/api/v1.0/sensors/gps-radio/ops-collars/status', jsonBody(fixes, { token: admin }));
    t.equal(intake.status, 201, `the positions were stored: ${JSON.stringify(intake.body)}`);
    const tenant = (await runtime.services.store.repos.tenants.findByName('default'))!;
    const user = await runtime.admin.createUser({ tenant: 'default', username: USER.username, password: USER.password, firstName: 'Neema', lastName: 'Otieno', permissions: PERMISSIONS });
    for (const group of [GROUP, 'Rangers north', 'Rangers south']) await runtime.services.subjects.allowUserToViewGroup(tenant.id, user.id, group);
    const subjects = await s.json('/api/v1.0/subjects', { token: admin });
    for (const subject of unwrap(subjects.body) as Array<{ id: string; name: string }>) seeded.subjects.set(subject.name, subject.id);
    t.ok(COLLARS.every((collar) => seeded.subjects.has(collar.name)), 'the intake created both subjects');
  });

  await t.test('seed events with locations through the events API', async (t) => {
    const points = [[36.78, -1.31], [36.84, -1.22]];
    for (const [index, [lon, lat]] of points.entries()) {
      const body = { event_type: 'snare_removal_rep', event_details: { snarerep_type: 'gin_trap', snarerep_count: index + 1, snarerep_notes: `Seeded ${index}` }, location: { latitude: lat, longitude: lon }, priority: 200, state: 'active', time: new Date().toISOString() };
      const created = await s.json('/api/v1.0/activity/events', jsonBody(body, { token: admin }));
      t.equal(created.status, 201, JSON.stringify(created.body));
      if (unwrap(created.body)?.id) seeded.events.push(unwrap(created.body).id as string);
    }
  });

  await t.test('seed an incident containing an event', async (t) => {
    // The web app makes an incident as `{event_type: 'incident_collection', is_collection: true}`
    // (das-web-react createNewIncidentCollection): the built-in type, created on a tenant's first incident.
    const created = await s.json('/api/v1.0/activity/events', jsonBody({ event_type: 'incident_collection', is_collection: true, title: INCIDENT_TITLE, priority: 300, state: 'active' }, { token: admin }));
    t.equal(created.status, 201, `the incident as the app makes it (incident_collection): ${JSON.stringify(created.body).slice(0, 300)}`);
    const id = unwrap(created.body)?.id as string | undefined;
    if (!id) return void t.fail(`no incident: ${JSON.stringify(created.body)}`);
    seeded.incident = id;
    const related = await s.json(`/api/v1.0/activity/event/${id}/relationships`, jsonBody({ type: 'contains', to_event_id: seeded.events[1] }, { token: admin }));
    t.ok(related.status === 200 || related.status === 201, `the relationship: ${related.status} ${JSON.stringify(related.body).slice(0, 300)}`);
  });

  await t.test('seed a patrol scheduled within the hour', async (t) => {
    const at = (hours: number) => new Date(Date.now() + hours * 3600_000).toISOString();
    const body = { title: PATROL_TITLE, objective: 'Check the gate lock', priority: 0, patrol_segments: [{ patrol_type: 'routine_patrol', leader: null, scheduled_start: at(0.5), scheduled_end: at(3), time_range: { start_time: null, end_time: null } }] };
    const created = await s.json('/api/v1.0/activity/patrols', jsonBody(body, { token: admin }));
    t.equal(created.status, 201, `the patrol: ${JSON.stringify(created.body).slice(0, 300)}`);
  });

  await t.test('seed an inbox message from a collar', async (t) => {
    const query = new URLSearchParams({ manufacturer_id: COLLARS[0]!.manufacturerId, provider_key: 'ops-collars' });
    const created = await s.json(`/api/v1.0/messages?${query}`, jsonBody({ message_type: 'inbox', text: MESSAGE_TEXT, message_time: new Date().toISOString() }, { token: admin }));
    t.equal(created.status, 201, `the message: ${JSON.stringify(created.body)}`);
  });

  await t.test('log in', async (t) => {
    await logIn(session, USER.username, USER.password);
    t.pass('the map page shows');
  });

  await t.test('the map finishes loading (its Mapbox style, terrain and glyphs answered locally)', async (t) => {
    const state = () => page.evaluate(() => (globalThis as any).map?.loaded?.() === true);
    t.ok(await poll(state, Boolean, 30000), `map.loaded() (Mapbox requests refused: ${JSON.stringify(mapbox.refused.filter((url) => /mapbox/.test(url)))})`);
  });

  await t.test('the map shows the subjects, and every image they need loads', async (t) => {
    const names = COLLARS.map((collar) => collar.name);
    const drawn = await poll(() => renderedProperties(page), (found) => names.every((name) => found.some((f) => f.name === name && f.content_type === 'observations.subject')), 30000);
    await shot('10-map-subjects');
    t.same(names.filter((name) => !drawn.some((f) => f.name === name)), [], `both subjects are drawn on the map (drawn: ${JSON.stringify(drawn.map((f) => f.name ?? f.id))}; map: ${JSON.stringify(await mapState(page))})`);
    const listed = await subjectsTheMapRead(responses);
    t.ok(listed.length >= 2, `the map read its subjects (${listed.length})`);
    for (const subject of listed.filter((one) => names.includes(one.name))) {
      t.ok(subject.tracks_available === true, `${subject.name}: tracks_available`);
      const images = [subject.image_url, subject.last_position?.properties?.image].filter((url): url is string => typeof url === 'string' && url !== '');
      t.ok(images.length > 0, `${subject.name}: has an image (image_url, last_position.properties.image)`);
      for (const url of images) {
        const seen = await poll(async () => responses.all.find((r) => sameResource(r.url, url, session.origin.url)), Boolean, 10000);
        t.ok(seen, `${subject.name}: its image ${url} was requested`);
        if (seen) t.ok(seen.status === 200 && /^image\//.test(seen.contentType), `${subject.name}: its image ${url} loads (${seen.status} ${seen.contentType})`);
      }
    }
    const broken = responses.all.filter((r) => (r.resourceType === 'image' || /\.(svg|png|jpe?g|gif|webp)(\?|$)/i.test(r.url)) && (r.status >= 400 || !/^image\//.test(r.contentType)));
    t.same(broken.map((r) => `${r.status} ${r.contentType} ${r.url}`), [], 'no broken image request');
    t.same(responses.failed.filter((url) => url.startsWith(session.origin.url)), [], 'no failed request on the origin');
  });

  await t.test("a subject's popup, and its track drawn from subject/<id>/tracks", async (t) => {
    const collar = COLLARS[0]!;
    const id = seeded.subjects.get(collar.name);
    if (!id) return void t.fail('the subject was not seeded');
    const point = await screenPointOf(page, (f) => f.id === id && f.content_type === 'observations.subject');
    if (!point) return void t.fail(`${collar.name} is not drawn on the map`);
    const tracks = page.waitForResponse((r) => r.url().includes(`/api/v1.0/subject/${id}/tracks`), { timeout: 20000 }).catch(() => null);
    await page.mouse.click(point.x, point.y);
    // Where other features lie near the click, the app first lists them (its cluster-select
    // popup); the subject's own popup is then one click on its item away.
    const label = page.locator('.mapboxgl-popup').getByText(/^Tracks (on|off|pinned)$/);
    const item = page.locator('.mapboxgl-popup li', { hasText: collar.name });
    await label.or(item).first().waitFor({ timeout: 15000 });
    if ((await label.count()) === 0) await item.first().click();
    const popup = page.locator('.mapboxgl-popup', { hasText: collar.name });
    await label.first().waitFor({ timeout: 15000 });
    t.pass(`clicking ${collar.name} opens its popup`);
    const answer = await tracks;
    t.equal(answer?.status(), 200, `the app asked GET subject/<id>/tracks (${answer?.url() ?? 'no request'})`);
    if (answer?.status() === 200) {
      const body = (await answer.json()) as any;
      const feature = body?.data?.features?.[0] ?? body?.features?.[0];
      t.match(feature, { type: 'Feature', geometry: { type: 'LineString' }, properties: { coordinateProperties: { times: Array } } }, 'a LineString with coordinateProperties.times');
    }
    const line = await poll(() => renderedProperties(page, 'track-layer'), (found) => found.some((f) => f.id === id), 15000);
    t.ok(line.some((f) => f.id === id), `its track is drawn (track layers: ${JSON.stringify(line.map((f) => f.id))})`);
    const toggle = popup.getByText(/^Tracks (on|off|pinned)$/);
    t.ok((await toggle.count()) > 0, 'the popup has a track toggle');
    if ((await toggle.count()) > 0) {
      const before = await toggle.first().textContent();
      await toggle.first().click();
      await poll(async () => toggle.first().textContent(), (text) => text !== before, 5000);
      t.not(await toggle.first().textContent(), before, `the toggle switches (${before} -> ${await toggle.first().textContent()})`);
    }
    await shot('11-track');
    await page.keyboard.press('Escape');
  });

  await t.test('the events are drawn on the map from their geojson', async (t) => {
    t.equal(seeded.events.length, 2, 'two located events were seeded');
    const listed = responses.json.filter((r) => /\/api\/v1\.0\/activity\/events\?.*bbox=/.test(r.url));
    t.ok(listed.length > 0, 'the map listed events in its bbox');
    const results: any[] = listed.flatMap((r) => r.body?.data?.results ?? []);
    for (const id of seeded.events) {
      const event = results.find((one) => one.id === id);
      t.match(event?.geojson, { type: 'Feature', geometry: { type: 'Point', coordinates: Array } }, `event ${id} carries geojson`);
    }
    const drawn = await poll(() => renderedProperties(page), (found) => seeded.events.every((id) => found.some((f) => f.id === id)), 20000);
    t.same(seeded.events.filter((id) => !drawn.some((f) => f.id === id)), [], `both located events are drawn (map: ${JSON.stringify(await mapState(page))})`);
    await shot('12-events');
  });

  await t.test('the events feed lists the incident', async (t) => {
    await page.click('a[href="/events"]');
    await page.locator('li', { hasText: INCIDENT_TITLE }).first().waitFor({ timeout: 20000 });
    await shot('13-incident');
    t.pass('the incident is in the feed');
  });

  await t.test('open a scheduled patrol and start it', async (t) => {
    await page.click('a[href="/patrols"]');
    const item = page.locator('[data-testid^="patrol-list-item-title-"]', { hasText: PATROL_TITLE });
    await item.first().waitFor({ timeout: 30000 }).catch(() => undefined);
    await shot('14-patrols');
    await item.first().click();
    await page.locator('[data-testid="patrolDetailView-header-title"]').waitFor({ timeout: 15000 });
    await shot('15-patrol-opened');
    t.pass('the patrol opens');
    const patched = page.waitForResponse((r) => /\/api\/v1\.0\/activity\/patrols?\/[^/?]+\/?(\?|$)/.test(r.url()) && r.request().method() === 'PATCH', { timeout: 20000 });
    await page.getByRole('button', { name: 'Start', exact: true }).first().click();
    const answer = await patched;
    t.equal(answer.status(), 200, `the start was saved: ${answer.request().postData()} -> ${(await answer.text()).slice(0, 300)}`);
    await shot('16-patrol-started');
  });

  await t.test('a new patrol is saved (the app sends icon_id, is_collection, priority)', async (t) => {
    await page.goto(session.origin.url + '/patrols');
    await page.waitForSelector('a[href="/events"]', { timeout: 60000 });
    await page.locator('[data-testid="addItemButton"]').first().click();
    await page.click('text=Add Patrol');
    await page.click('text=Routine foot patrol');
    await page.locator('[data-testid="patrolDetailView-header-title"]').waitFor({ timeout: 15000 });
    const posted = page.waitForResponse((r) => /\/api\/v1\.0\/activity\/patrols\/?(\?|$)/.test(r.url()) && r.request().method() === 'POST', { timeout: 20000 });
    await page.getByRole('button', { name: 'Save', exact: true }).first().click();
    const answer = await posted;
    t.equal(answer.status(), 201, `the new patrol was stored: ${answer.request().postData()} -> ${(await answer.text()).slice(0, 400)}`);
    await shot('17-patrol-new');
  });

  for (const [index, item] of EXPORTS.entries()) {
    await t.test(`Data Export: ${item.title} downloads a ${item.kind.toUpperCase()} file`, async (t) => {
      await page.goto(session.origin.url + '/');
      await page.waitForSelector('a[href="/events"]', { timeout: 60000 });
      await page.getByRole('button', { name: 'Open Main Menu' }).click();
      const drawer = page.locator('[data-testid="globalMenuDrawer"]');
      await drawer.getByText('EXPORTS', { exact: true }).waitFor({ timeout: 30000 });
      const button = drawer.getByRole('button', { name: item.title, exact: true });
      if ((await button.count()) === 0) {
        await shot(`2${index}-export-menu`);
        return void t.fail(`the menu has no "${item.title}" (items: ${JSON.stringify(await drawer.locator('h6 ~ button').allTextContents())})`);
      }
      await button.click();
      const exportButton = page.locator('.modal').getByRole('button', { name: 'Export', exact: true });
      await exportButton.waitFor({ timeout: 15000 });
      const download = page.waitForEvent('download', { timeout: 30000 }).catch(() => null);
      const answer = page.waitForResponse((r) => new URL(r.url()).pathname.replace(/\/$/, '') === item.path, { timeout: 30000 }).catch(() => null);
      await exportButton.click();
      const [file, response] = await Promise.all([download, answer]);
      t.equal(response?.status(), 200, `GET ${item.path} answers 200 (${response?.status() ?? 'no request'} ${response?.url() ?? ''})`);
      if (!file) return void t.fail('no download started');
      const saved = await file.path();
      const bytes = saved ? fs.readFileSync(saved) : Buffer.alloc(0);
      t.ok(bytes.length > 0, `${file.suggestedFilename()}: ${bytes.length} bytes`);
      const text = bytes.toString('utf8');
      if (item.kind === 'kml') {
        t.match(file.suggestedFilename(), /\.km[lz]$/, 'named .kml or .kmz');
        t.ok(/<kml[\s>]/.test(text) || bytes.subarray(0, 2).toString() === 'PK', 'a KML document (or KMZ archive)');
      } else {
        t.match(file.suggestedFilename(), /\.csv$/, 'named .csv');
        t.match(response?.headers()['content-type'] ?? '', /text\/csv/, 'sent as text/csv');
        t.ok(text.split(/\r?\n/)[0]!.includes(','), `a CSV header line: ${text.split(/\r?\n/)[0]!.slice(0, 120)}`);
      }
      await shot(`2${index}-export-${item.kind}`);
    });
  }

  await t.test('the messages menu shows the seeded message', async (t) => {
    const listed = await subjectsTheMapRead(responses);
    const sender = listed.find((subject) => subject.name === COLLARS[0]!.name);
    t.ok(sender?.messaging?.length > 0, `the collar's subject has messaging (${JSON.stringify(sender?.messaging)})`);
    await page.goto(session.origin.url + '/');
    await page.waitForSelector('a[href="/events"]', { timeout: 60000 });
    const toggle = page.getByRole('button', { name: 'Open Messages' });
    await toggle.waitFor({ timeout: 20000 });
    await toggle.click();
    await page.getByText(MESSAGE_TEXT).first().waitFor({ timeout: 15000 });
    await shot('30-messages');
    t.pass('the message is listed');
  });

  await t.test('no uncaught page error, no 5xx, every 4xx explained', async (t) => {
    // Mapbox's "could not load image": an icon the map asked for did not load.
    const imageErrors = session.pageErrors.filter((error) => /could not load image/.test(error));
    session.pageErrors.splice(0, session.pageErrors.length, ...session.pageErrors.filter((error) => !imageErrors.includes(error)));
    t.same(imageErrors, [], 'no image the map could not load');
    checkCalls(t, session, EXPLAINED_4XX, 'api-calls-map');
  });
});

interface Recorded {
  url: string;
  status: number;
  contentType: string;
  resourceType: string;
}

/** Every response the page gets (and the JSON of its API list calls), and every failed request. */
function recordResponses(page: Page) {
  const all: Recorded[] = [];
  const json: Array<{ url: string; body: any }> = [];
  const failed: string[] = [];
  const pending: Array<Promise<unknown>> = [];
  page.on('response', (response: Response) => {
    const request = response.request();
    const contentType = response.headers()['content-type'] ?? '';
    all.push({ url: response.url(), status: response.status(), contentType, resourceType: request.resourceType() });
    if (/\/api\/v1\.0\/(subjects|activity\/events)\?/.test(response.url()) && contentType.includes('json')) {
      pending.push(response.json().then((body) => json.push({ url: response.url(), body }), () => undefined));
    }
  });
  // net::ERR_ABORTED: a request the page itself dropped (a navigation), not a failure.
  page.on('requestfailed', (request) => {
    const error = request.failure()?.errorText ?? '';
    if (!error.includes('ERR_ABORTED')) failed.push(`${request.url()} ${error}`);
  });
  return { all, json, failed, settled: () => Promise.all(pending) };
}

async function subjectsTheMapRead(responses: ReturnType<typeof recordResponses>): Promise<any[]> {
  await responses.settled();
  return responses.json.filter((r) => r.url.includes('/api/v1.0/subjects?')).flatMap((r) => r.body?.data ?? []);
}

function sameResource(seen: string, wanted: string, origin: string): boolean {
  const absolute = new URL(wanted, origin + '/').href;
  return seen === absolute || seen === wanted;
}

/** The properties of every feature the map draws (optionally on layers whose id starts so). */
function renderedProperties(page: Page, layerPrefix = ''): Promise<Array<Record<string, any>>> {
  return page.evaluate((prefix) => {
    const map = (globalThis as any).map;
    if (!map?.getStyle?.()) return [];
    const layers = map.getStyle().layers.map((layer: { id: string }) => layer.id).filter((id: string) => id.startsWith(prefix));
    if (layers.length === 0) return [];
    return map.queryRenderedFeatures(undefined, { layers }).map((feature: any) => ({ layer: feature.layer.id, ...feature.properties }));
  }, layerPrefix);
}

/** Where on the page the map draws the first feature that matches (for a real click). */
async function screenPointOf(page: Page, match: (properties: Record<string, any>) => boolean): Promise<{ x: number; y: number } | null> {
  const features = await page.evaluate(() => {
    const map = (globalThis as any).map;
    const box = map.getContainer().getBoundingClientRect();
    return map.queryRenderedFeatures().map((feature: any) => {
      const coordinates = feature.geometry.type === 'Point' ? feature.geometry.coordinates : null;
      const at = coordinates && map.project(coordinates);
      return { properties: feature.properties, point: at ? { x: box.left + at.x, y: box.top + at.y } : null };
    });
  });
  return features.find((feature: { properties: Record<string, any>; point: { x: number; y: number } | null }) => feature.point && match(feature.properties))?.point ?? null;
}

/** The map's layers and the feature count of each GeoJSON source (for failure messages). */
function mapState(page: Page): Promise<unknown> {
  return page.evaluate(() => {
    const map = (globalThis as any).map;
    if (!map?.getStyle?.()) return 'no map';
    const sources = Object.entries(map.getStyle().sources as Record<string, any>).map(([id, source]) => `${id}:${source.type}:${Array.isArray(source.data?.features) ? source.data.features.length : '-'}`);
    return { layers: map.getStyle().layers.map((layer: { id: string }) => layer.id), sources, images: map.listImages?.().length };
  });
}

/** Calls `read` until `done` holds of its value or `ms` pass; the last value. */
async function poll<T>(read: () => Promise<T>, done: (value: T) => boolean, ms: number): Promise<T> {
  const until = Date.now() + ms;
  let value = await read();
  while (!done(value) && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    value = await read();
  }
  return value;
}
