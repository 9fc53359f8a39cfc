import fs from 'node:fs';
import path from 'node:path';
import type { Test } from 'tap';
import { type Browser, type Page, chromium } from 'playwright-core';
import { type TestServer, startTestServer } from '../helpers/server.js';
import { repoRoot } from '../helpers/cli.js';
import { sharedDir } from '../helpers/fixtures.js';
import { loadDemoData } from '../../server/domain/demo.js';
import { presetClient } from '../../cli/commands/client-presets.js';
import { type CallRecord, startWebOrigin } from './web-origin.js';

export const CHROMIUM = '/usr/bin/chromium';
export const ARTIFACTS = path.join(repoRoot, 'test-artifacts', 'web-app');

/** A 4xx the app is allowed to meet, with the reason. */
export interface Explained4xx {
  pattern: RegExp;
  status: number;
  why: string;
}

export interface WebSession {
  s: TestServer;
  origin: { url: string; calls: CallRecord[] };
  browser: Browser;
  page: Page;
  pageErrors: string[];
  shot(name: string): Promise<unknown>;
}

/**
 * The public EarthRanger web app (../shared/clients/earthranger-web/build, unchanged) in
 * headless Chromium against a real server with the demo data: served with the service behind
 * it on one origin, its client registered (web-app preset, earthranger profile). null (the test
 * marked skipped, saying why) when ../shared, Chromium or the database is not here.
 */
export async function startWebSession(t: Test): Promise<WebSession | null> {
  const shared = sharedDir();
  const build = shared && path.join(shared, 'clients/earthranger-web/build');
  if (!build || !fs.existsSync(path.join(build, 'index.html'))) {
    t.pass('skipped: ../shared/clients/earthranger-web/build is absent', { skip: 'no ../shared' });
    return null;
  }
  if (!fs.existsSync(CHROMIUM)) {
    t.pass(`skipped: ${CHROMIUM} is absent (apt-get install -y chromium)`, { skip: 'no chromium' });
    return null;
  }
  const s = await startTestServer(t);
  if (!s) return null;
  const { runtime } = s.server;
  await loadDemoData({ services: runtime.services, admin: runtime.admin }, path.join(repoRoot, 'fixtures/demo'));
  await runtime.admin.createClient(presetClient('web-app', { tenant: 'default' }));
  await runtime.services.startup.setMap('default', { name: 'Demo reserve', center: [36.8, -1.3], zoom: 10 });
  const origin = await startWebOrigin(build, s.url);
  t.teardown(() => origin.close());
  fs.mkdirSync(ARTIFACTS, { recursive: true });

  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  t.teardown(() => browser.close());
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 }, acceptDownloads: true });
  const pageErrors: string[] = [];
  page.on('pageerror', (error) => pageErrors.push(String(error)));
  // No internet here: everything off-origin is refused, except the base map style, answered
  // with an empty style (a third-party boundary) so that the map page draws its controls, and
  // its glyphs, answered empty. The map then never draws its features (Mapbox GL fails every
  // symbol tile on an empty glyph PBF, and the terrain source is refused): a test that needs
  // them drawn adds serveMapOffline (offline-map.ts) on top.
  await page.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith(origin.url)) return route.continue();
    if (/^https:\/\/api\.mapbox\.com\/styles\/v1\/[^/]+\/[^/?]+\?/.test(url)) {
      return route.fulfill({ contentType: 'application/json', body: JSON.stringify({ version: 8, name: 'offline', glyphs: 'mapbox://fonts/mapbox/{fontstack}/{range}.pbf', sources: {}, layers: [{ id: 'background', type: 'background', paint: { 'background-color': '#dde3d0' } }] }) });
    }
    if (/^https:\/\/api\.mapbox\.com\/fonts\/v1\//.test(url)) return route.fulfill({ contentType: 'application/x-protobuf', body: Buffer.alloc(0) });
    return route.abort();
  });
  const shot = (name: string) => page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`) });
  return { s, origin, browser, page, pageErrors, shot };
}

/** The app's login form, then the map page (its sidebar's events tab). */
export async function logIn(session: WebSession, username: string, password: string): Promise<void> {
  const { page, origin } = session;
  await page.goto(origin.url + '/login');
  await page.fill('#username', username);
  await page.fill('#password', password);
  await page.click('button[type="submit"]');
  await page.waitForSelector('a[href="/events"]', { timeout: 30000 });
}

/** No uncaught page error, no 5xx, every 4xx explained; the calls written to `<name>.txt`. */
export function checkCalls(t: Test, session: WebSession, explained: Explained4xx[], name = 'api-calls'): void {
  const { origin, pageErrors } = session;
  const lines = origin.calls.map((call) => `${call.status} ${call.method} ${call.path}`);
  fs.writeFileSync(path.join(ARTIFACTS, `${name}.txt`), lines.join('\n') + '\n');
  t.same(pageErrors, [], 'no uncaught page error');
  t.same(origin.calls.filter((call) => call.status >= 500).map((call) => `${call.status} ${call.method} ${call.path}`), [], 'no 5xx');
  const unexplained = origin.calls.filter((call) => call.status >= 400 && call.status < 500 && !explained.some((e) => e.status === call.status && e.pattern.test(`${call.method} ${call.path}`)));
  t.same(unexplained.map((call) => `${call.status} ${call.method} ${call.path}`), [], 'every 4xx is explained');
  t.ok(origin.calls.some((call) => call.path.startsWith('/api/v1.0/user/me') && call.status === 200), 'the app read user/me');
}
