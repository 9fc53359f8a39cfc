import t from 'tap';
import { dialect } from '../helpers/database.js';
import { sampleSchema } from '../helpers/catalog.js';
import { realtimeSession } from '../helpers/realtime-session.js';
import { PASSWORD, PollingSession, handshake, jsonRequest, rawRequest, startRealtimeServer } from '../helpers/realtime-server.js';

/**
 * Issue 24, finding 3: the absolute URLs of a pushed event or patrol (`url`, file `url`s, segment
 * `image_url`) are built for each receiving session from its own handshake's Host, never from
 * the writer's request. The server runs in its own process.
 */

const E = '/api/v1.0/activity/events';
const P = '/api/v1.0/activity/patrols';
const ATTACKER = { host: 'attacker.example' };

/** A multipart upload of one small file, with the writer's Host. */
function upload(url: string, token: string, headers: Record<string, string>) {
  const boundary = 'realtime-urls-boundary';
  const body = `--${boundary}\r\nContent-Disposition: form-data; name="filecontent.file"; filename="note.txt"\r\nContent-Type: text/plain\r\n\r\nhello\r\n--${boundary}--\r\n`;
  return rawRequest(url, { method: 'POST', headers: { ...headers, authorization: `Bearer ${token}`, 'content-type': `multipart/form-data; boundary=${boundary}` }, body });
}

/** Every absolute URL in a pushed payload, wherever it is. */
function urlsIn(value: unknown, found: string[] = []): string[] {
  if (typeof value === 'string' && /^https?:\/\//.test(value)) found.push(value);
  else if (Array.isArray(value)) for (const item of value) urlsIn(item, found);
  else if (value && typeof value === 'object') for (const item of Object.values(value)) urlsIn(item, found);
  return found;
}

t.test(`realtime: pushed URLs name each receiver's own host, never the writer's (${dialect})`, async (t) => {
  const s = await startRealtimeServer(t);
  if (!s) return;
  const perms = ['view_event', 'add_event', 'change_event', 'view_patrol', 'add_patrol', 'change_patrol', 'view_patroltype'].flatMap((p) => ['--permission', p]);
  t.equal((await s.admin(['create-user', '--tenant', 'default', '--username', 'mallory', '--password', PASSWORD, ...perms])).code, 0);
  const admin = await s.login();
  const mallory = await s.login('mallory');
  t.equal((await jsonRequest(`${s.url}/api/v2.0/activity/eventtypes`, 'POST', { value: 'sighting', display: 'Sighting' }, admin)).status, 201);
  t.equal((await jsonRequest(`${s.url}${P}/types`, 'POST', { value: 'foot', display: 'Foot', schema: sampleSchema() }, admin)).status, 201);

  // Two readers: a socket.io client at the server's address, and a long-polling session whose
  // handshake names the site's public host.
  const local = await realtimeSession(t, s.url, admin, { transports: ['polling'] });
  t.equal(local.status, 200);
  const site = { host: 'fieldops.example.org' };
  const polling = await PollingSession.open(s.url, site);
  t.equal(await polling.authorize(admin), 200, 'the polling reader is authorised');

  // Mallory writes with Host: attacker.example.
  const created = await jsonRequest(s.url + E, 'POST', { event_type: 'sighting', event_details: {} }, mallory, ATTACKER);
  t.equal(created.status, 201, `mallory creates an event: ${created.status === 201 ? 'yes' : created.body}`);
  const event = JSON.parse(created.body) as { id: string; url: string };
  t.match(event.url, /^http:\/\/attacker\.example\//, "the writer's own answer names the host it used (its business)");
  t.equal((await upload(`${s.url}/api/v1.0/activity/event/${event.id}/files`, mallory, ATTACKER)).status, 201);
  t.equal((await jsonRequest(`${s.url}/api/v1.0/activity/event/${event.id}`, 'PATCH', { title: 'Look here' }, mallory, ATTACKER)).status, 200);
  const patrol = await jsonRequest(s.url + P, 'POST', { title: 'Night', patrol_segments: [{ patrol_type: 'foot' }] }, mallory, ATTACKER);
  t.equal(patrol.status, 201, `and a patrol: ${patrol.status === 201 ? 'yes' : patrol.body}`);
  const patrolId = (JSON.parse(patrol.body) as { id: string }).id;
  t.equal((await upload(`${s.url}${P}/${patrolId}/files`, mallory, ATTACKER)).status, 201);
  t.equal((await jsonRequest(`${s.url}${P}/${patrolId}`, 'PATCH', { title: 'Night watch' }, mallory, ATTACKER)).status, 200);

  const types = ['new_event', 'update_event', 'new_patrol', 'update_patrol'];
  const localOrigin = s.url;
  const deadline = Date.now() + 10_000;
  while (local.received.filter(([type]) => types.includes(type)).length < 4 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  const pushedLocal = local.received.filter(([type]) => types.includes(type));
  t.same(pushedLocal.map(([type]) => type), types, 'the socket.io reader got the four changes');
  const polled: Array<[string, unknown]> = [];
  for (let i = 0; i < 10 && polled.length < 4; i++) {
    for (const packet of (await polling.poll()).packets) {
      const message = /^42\/das,(.*)$/s.exec(packet);
      if (message) {
        const [type, payload] = JSON.parse(message[1]!) as [string, unknown];
        if (types.includes(type)) polled.push([type, payload]);
      }
    }
  }
  t.same(polled.map(([type]) => type), types, 'the polling reader got them too');

  const localUrls = pushedLocal.flatMap(([, payload]) => urlsIn(payload));
  const siteUrls = polled.flatMap(([, payload]) => urlsIn(payload));
  // event url; its file's url; the patrol's segment image_url (twice) and file url.
  t.ok(localUrls.length >= 5 && siteUrls.length === localUrls.length, `URLs pushed: ${localUrls.length} and ${siteUrls.length}`);
  t.same(localUrls.filter((url) => !url.startsWith(localOrigin + '/')), [], `every URL the socket.io reader got is on ${localOrigin}`);
  t.same(siteUrls.filter((url) => !url.startsWith('http://fieldops.example.org/')), [], 'every URL the polling reader got is on its own host');
  t.same(siteUrls.map((url) => url.replace('http://fieldops.example.org', localOrigin)), localUrls, 'the same URLs otherwise');
  const update = pushedLocal[1]![1] as { event_data: { url: string; files: Array<{ url: string }> } };
  t.equal(update.event_data.url, `${localOrigin}/api/v1.0/activity/event/${event.id}`);
  t.match(update.event_data.files[0]!.url, new RegExp(`^${localOrigin}/api/v1\\.0/activity/event/${event.id}/file/[^/]+/content$`));

  // A handshake whose Host the HTTP side would refuse (invalid_host) opens no session.
  const bad = await handshake(s.url, { host: 'bad_host!' });
  t.equal(bad.status, 403, 'a handshake with Host: bad_host! is refused');
  t.match(bad.body, /"code":4,"message":"[^"]*Host/, 'refused with engine.io\'s body');
});
