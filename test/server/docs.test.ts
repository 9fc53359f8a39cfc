import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { repoRoot } from '../helpers/cli.js';
import { dialect, startTestServer } from '../helpers/server.js';

const CHROMIUM = '/usr/bin/chromium';

t.test(`/api/docs: an offline API reference page (${dialect})`, async (t) => {
  const s = await startTestServer(t);
  if (!s) return;

  await t.test('the page and its assets, served from here with caching headers', async (t) => {
    const page = await s.request('/api/docs/');
    t.equal(page.status, 200);
    t.match(page.headers.get('content-type'), /^text\/html; charset=utf-8/);
    t.match(page.headers.get('content-security-policy'), /default-src 'none'.*connect-src 'self'/);
    const html = await page.text();
    t.notMatch(html, /https?:\/\//, 'no absolute URL: nothing is loaded from elsewhere');
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    t.ok(assets.length >= 3);
    const types: Record<string, RegExp> = { css: /^text\/css/, js: /^text\/javascript/, png: /^image\/png/ };
    for (const asset of assets) {
      const response = await s.request(asset);
      t.equal(response.status, 200, asset);
      t.match(response.headers.get('content-type'), types[asset.split('?')[0]!.split('.').pop()!]!, `${asset}: content type`);
      t.equal(response.headers.get('cache-control'), 'public, max-age=86400');
      const etag = response.headers.get('etag')!;
      t.match(etag, /^"[A-Za-z0-9_-]+"$/, 'a strong ETag');
      t.equal((await s.request(asset, { headers: { 'If-None-Match': etag } })).status, 304);
    }
    t.equal((await s.json('/api/docs/assets/package.json')).status, 404, 'only the viewer\'s assets');
    t.equal((await s.json('/api/docs/assets/..%2Fpackage.json')).status, 404);
  });

  await t.test('in headless Chromium: loads, lists the patrol type endpoints, calls nothing outside 127.0.0.1', async (t) => {
    if (dialect !== 'sqlite') return void t.pass('the page does not depend on the database: checked in the SQLite run', { skip: 'SQLite run only' });
    if (!fs.existsSync(CHROMIUM)) return void t.pass(`skipped: ${CHROMIUM} is not installed (apt-get install chromium)`, { skip: 'no Chromium' });
    let chromium: typeof import('playwright-core').chromium;
    try {
      ({ chromium } = await import('playwright-core'));
    } catch {
      return void t.pass('skipped: playwright-core is not installed', { skip: 'no playwright-core' });
    }
    const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'fieldops-chromium-'));
    // The profile directory is Playwright's --user-data-dir.
    const browser = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
      viewport: { width: 1280, height: 1600 },
    });
    t.teardown(async () => {
      await browser.close();
      fs.rmSync(profile, { recursive: true, force: true });
    });
    const page = await browser.newPage();
    const requested: string[] = [];
    const failures: string[] = [];
    page.on('request', (request) => requested.push(request.url()));
    page.on('pageerror', (error) => failures.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') failures.push(message.text());
    });
    const response = await page.goto(`${s.url}/api/docs`, { waitUntil: 'networkidle' });
    t.equal(response?.status(), 200);
    await page.waitForSelector('.opblock', { timeout: 20000 });
    const paths = await page.$$eval('.opblock-summary-path', (nodes) => nodes.map((node) => node.getAttribute('data-path') ?? node.textContent ?? ''));
    for (const expected of ['/api/v1.0/activity/patrols/types', '/api/v1.0/activity/patrols/types/{key}', '/api/v1.0/activity/patrols/types/{key}/rank']) {
      t.ok(paths.some((p) => p.replace(/\u200b/g, '') === expected), `lists ${expected}`);
    }
    t.match(await page.textContent('.info .title'), /fieldops API/);
    const outside = requested.filter((url) => !url.startsWith(s.url + '/') && !url.startsWith('data:'));
    t.same(outside, [], 'no request outside the server');
    t.same(failures, [], 'no script errors');
    const artifacts = path.join(repoRoot, 'test-artifacts');
    fs.mkdirSync(artifacts, { recursive: true });
    await page.screenshot({ path: path.join(artifacts, 'api-docs.png'), fullPage: false });
    t.ok(fs.statSync(path.join(artifacts, 'api-docs.png')).size > 10000, 'a screenshot in test-artifacts/api-docs.png');
  });
});
