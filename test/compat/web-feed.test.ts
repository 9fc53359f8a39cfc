import path from 'node:path';
import t from 'tap';
import { io } from 'socket.io-client';
import { dialect, startTestServer } from '../helpers/server.js';
import { repoRoot } from '../helpers/cli.js';
import { send } from '../helpers/catalog.js';
import { loadDemoData } from '../../server/domain/demo.js';
import { presetClient } from '../../cli/commands/client-presets.js';

/**
 * The web app's events feed at the HTTP level (what test/compat/web-app.test.ts sees in
 * Chromium, without it): the report body the app posts, the realtime `new_event` on the app's
 * namespace `/das` that puts it in the feed at once, and the feed's and the map's list queries
 * exactly as the app sends them, which must list a report saved without a location.
 */
t.test(`the web app's feed: a saved report is pushed on /das and listed by the app's queries (${dialect})`, async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const { runtime } = s.server;
  await loadDemoData({ services: runtime.services, admin: runtime.admin }, path.join(repoRoot, 'fixtures/demo'));
  await runtime.admin.createClient(presetClient('web-app', { tenant: 'default' }));
  const login = await fetch(s.url + '/oauth2/token/', { method: 'POST', body: new URLSearchParams({ grant_type: 'password', client_id: 'das_web_client', username: 'ranger', password: 'Demo-Acacia-Patrol-2026' }) });
  t.equal(login.status, 200);
  const token = ((await login.json()) as { access_token: string }).access_token;

  // The app's socket: namespace /das, then its authorization message and its filters.
  const socket = io(s.url + '/das', { path: '/socket.io', transports: ['polling', 'websocket'], reconnection: false });
  t.teardown(() => void socket.close());
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('connect_error', reject);
  });
  const authorized = new Promise<{ status: { code: number } }>((resolve) => socket.once('resp_authorization', resolve));
  socket.emit('authorization', { type: 'authorization', id: 1, authorization: `Bearer ${token}` });
  t.equal((await authorized).status.code, 200, 'the app is authorised on /das');
  socket.emit('event_filter', { state: ['active', 'new'] });
  const pushed = new Promise<any>((resolve) => socket.once('new_event', resolve));

  const now = Date.now();
  const report = { event_details: { snarerep_type: 'gin_trap', snarerep_count: 4, snarerep_notes: 'North boundary km 12' }, event_type: 'snare_removal_rep', icon_id: 'snare_removal_rep', is_collection: false, location: null, priority: 0, reported_by: null, state: 'new', time: new Date(now).toISOString() };
  const created = await s.json('/api/v1.0/activity/events', send('POST', report, token));
  t.equal(created.status, 201, JSON.stringify(created.body));
  const id = created.body.data.id as string;
  // What the feed reads of an event to list it, and of a realtime message to add it.
  const listed = { id, serial_number: 1, event_type: 'snare_removal_rep', title: 'snare removal rep', state: 'new', priority: 0, is_collection: false, location: null, time: String, updated_at: String };

  const message = await pushed;
  t.match(message, { type: 'new_event', mid: 1, event_id: id, matches_current_filter: true, count: 1, event_data: listed }, 'new_event carries the event as the list shows it');

  const dayStart = new Date(now - 31 * 86400_000);
  dayStart.setUTCHours(0, 0, 0, 0);
  const filter = encodeURIComponent(JSON.stringify({ date_range: { lower: dayStart.toISOString() }, text: '', sort: ['down', { value: 'updated_at', key: 'updatedAtLabel' }] }));
  const feed = `/api/v1.0/activity/events?include_notes=false&include_related_events=true&state=active&state=new&filter=${filter}&include_details=false&include_files=false&include_updates=false&page_size=25&exclude_contained=true&sort_by=-updated_at`;
  const map = `/api/v1.0/activity/events?include_notes=true&include_related_events=true&state=active&state=new&filter=${filter}&bbox=36.2295166161221%2C-1.6835850335227918%2C37.37048338388401%2C-0.9163566810140578&page_size=25&include_updates=false&sort_by=-updated_at`;
  const answer = await s.json(feed, { token });
  t.equal(answer.status, 200, `the feed: ${JSON.stringify(answer.body)}`);
  t.match(answer.body, { data: { count: 1, next: null, previous: null, results: [listed] }, status: { code: 200 } }, "the feed's query lists the report");
  // The map asks for what it can draw in its box (issue 27: bbox filters): a report without a location is not in it.
  const drawn = await s.json(map, { token });
  t.equal(drawn.status, 200, `the map: ${JSON.stringify(drawn.body)}`);
  t.match(drawn.body, { data: { count: 0, results: [] } }, "the map's query (bbox) leaves out the report without a location");
  const opened = await s.json(`/api/v1.0/activity/event/${id}`, { token });
  t.match(opened.body.data, { ...listed, event_details: report.event_details }, 'and the report opens with its details');
});
