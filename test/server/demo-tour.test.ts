/**
 * Issue 14 item 4: the README's tour as the demo ranger. trackedby lists the patrol leaders the
 * ranger may see, and every `image_url` of the demo catalogs is an SVG the server serves; a
 * site's own icons (`<data dir>/icons`) win over the built-in set.
 */
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { loadDemoData } from '../../server/domain/demo.js';
import { packageRoot } from '../../server/domain/users/common-passwords.js';
import { dialect, startTestServer } from '../helpers/server.js';

t.test(`the demo tour as ranger (${dialect})`, async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const { services, admin, config } = s.server.runtime;
  await loadDemoData({ services, admin }, path.join(packageRoot(), 'fixtures/demo'));
  const ranger = (await s.login('ranger', 'Demo-Acacia-Patrol-2026')).access_token;

  const leaders = await s.json('/api/v1.0/activity/patrols/trackedby', { token: ranger });
  t.equal(leaders.status, 200);
  t.same(leaders.body.properties.leader.enum.map((l: { name: string }) => l.name).sort(), ['Amina Hassan', 'Joseph Lekishon', 'Wanjiru Kamau'], 'the ranger sees the three patrol leaders');

  const patrolTypes = (await s.json('/api/v1.0/activity/patrols/types', { token: ranger })).body as Array<{ image_url: string }>;
  const eventTypes = (await s.json('/api/v2.0/activity/eventtypes', { token: ranger })).body as Array<{ image_url: string }>;
  const urls = [...patrolTypes, ...eventTypes].map((item) => item.image_url);
  t.equal(urls.length, 5);
  for (const url of urls) {
    const response = await fetch(url);
    t.equal(response.status, 200, `${url} is served`);
    t.equal(response.headers.get('content-type'), 'image/svg+xml');
    t.match(await response.text(), /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    t.equal(response.headers.get('x-content-type-options'), 'nosniff');
  }

  const icon = await fetch(`${s.url}/static/sprite-src/foot-patrol.svg`);
  const etag = icon.headers.get('etag')!;
  t.equal((await fetch(`${s.url}/static/sprite-src/foot-patrol.svg`, { headers: { 'If-None-Match': etag } })).status, 304, 'revalidated by ETag');
  const missing = await fetch(`${s.url}/static/sprite-src/no-such-icon.svg`);
  t.equal(missing.status, 200, 'an SVG name outside the set: the generic icon (no broken image)');
  t.equal(await missing.text(), await (await fetch(`${s.url}/static/sprite-src/generic.svg`)).text());
  t.equal((await fetch(`${s.url}/static/sprite-src/..%2Fpackage.json`)).status, 404, 'no way out of the icon folders');
  t.equal((await fetch(`${s.url}/static/sprite-src/foot-patrol.png`)).status, 404, 'SVG only');

  const siteIcons = path.join(config.dataDir, 'icons');
  fs.mkdirSync(siteIcons, { recursive: true });
  const own = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"><title>ours</title></svg>\n';
  fs.writeFileSync(path.join(siteIcons, 'foot-patrol.svg'), own);
  fs.writeFileSync(path.join(siteIcons, 'boat.svg'), own);
  t.equal(await (await fetch(`${s.url}/static/sprite-src/foot-patrol.svg`)).text(), own, "the site's icon wins over the built-in one");
  t.equal((await fetch(`${s.url}/static/sprite-src/boat.svg`)).status, 200, "and the site's own names are served");
});
