import t from 'tap';
import type { Page } from 'playwright-core';
import { dialect } from '../helpers/server.js';
import { type Explained4xx, checkCalls, logIn, startWebSession } from './web-session.js';

/**
 * Every 4xx the app is allowed to meet, with the reason. Anything else fails the test.
 */
const EXPLAINED_4XX: Explained4xx[] = [
  { pattern: /^GET \/api\/v1\.0\/user\/eula/, status: 401, why: 'the login page asks whether a EULA must be accepted before anyone has logged in' },
];

/**
 * The public EarthRanger web app (../shared/clients/earthranger-web/build, unchanged) in
 * headless Chromium against a real server: served with the service behind it on one origin,
 * logged in as a demo user through the web-app preset client (earthranger profile).
 */
t.test(`the EarthRanger web app on fieldops, in Chromium (${dialect})`, async (t) => {
  const session = await startWebSession(t);
  if (!session) return;
  const { s, origin, page, shot } = session;
  let callsAtSave = 0;

  await t.test('log in and land on the map page', async (t) => {
    await logIn(session, 'ranger', 'Demo-Acacia-Patrol-2026');
    await page.waitForSelector('text=Demo reserve', { timeout: 10000 });
    await shot('1-map');
    t.pass('the map page shows the sidebar and the site map name');
  });

  await t.test('events feed and patrols tab', async (t) => {
    await page.click('a[href="/events"]');
    await page.waitForSelector('text=Events', { timeout: 10000 });
    await shot('2-events');
    await page.click('a[href="/patrols"]');
    await page.waitForSelector('text=Patrols', { timeout: 10000 });
    await shot('3-patrols');
    t.pass('both tabs render');
  });

  await t.test('add patrol lists the patrol types', async (t) => {
    await openAddModal(page);
    await page.click('text=Add Patrol');
    await page.waitForSelector('text=Routine foot patrol', { timeout: 10000 });
    await shot('4-add-patrol');
    await page.keyboard.press('Escape');
    t.pass('the demo patrol types are listed');
  });

  await t.test('add report lists the event types and renders a form from a demo schema', async (t) => {
    await page.click('a[href="/events"]');
    await openAddModal(page);
    await page.click('text=Add Event');
    await page.waitForSelector('text=fence patrol rep', { timeout: 10000 });
    await shot('5-add-report');
    await page.click('text=snare removal rep');
    await page.waitForSelector('text=Snare type', { timeout: 15000 });
    await page.waitForSelector('text=Snares removed', { timeout: 5000 });
    await shot('6-report-form');
    t.pass('the report form shows the fields of snare_removal_rep');
  });

  await t.test('save the report: it is stored with its details', async (t) => {
    await page.locator('#root_snarerep_type').click();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await page.fill('#root_snarerep_count', '4');
    await page.fill('#root_snarerep_notes', 'North boundary km 12');
    callsAtSave = origin.calls.length;
    const response = page.waitForResponse((answer) => answer.url().includes('/api/v1.0/activity/events') && answer.request().method() === 'POST', { timeout: 15000 });
    await page.click('button:has-text("Save")');
    const saved = await response;
    t.equal(saved.status(), 201, `the report was stored: ${saved.request().postData()} -> ${await saved.text()}`);
    const created = ((await saved.json()) as { data: { id: string; serial_number: number } }).data;
    const stored = await s.json(`/api/v1.0/activity/event/${created.id}`, { token: (await s.login()).access_token });
    t.match(stored.body.event_details, { snarerep_count: 4, snarerep_notes: 'North boundary km 12' }, 'with its details');
  });

  // The app adds a saved report to the feed when the realtime channel (socket.io, namespace
  // `/das`) pushes its `new_event`: no list call is made after the save.
  await t.test('the saved report appears in the feed at once (realtime new_event)', async (t) => {
    await page.locator('li:has-text("snare removal rep")').first().waitFor({ timeout: 10000 });
    await page.getByText('Healthy', { exact: true }).waitFor({ timeout: 10000 });
    await shot('7-report-saved');
    const lists = origin.calls.slice(callsAtSave).filter((call) => call.method === 'GET' && call.path.startsWith('/api/v1.0/activity/events?'));
    t.same(lists, [], 'the feed lists the report and the realtime badge says Healthy, with no list call since the save');
  });

  await t.test('after a fresh load the feed lists the report, and it opens with its details', async (t) => {
    await page.goto(origin.url + '/events');
    const item = page.locator('li:has-text("snare removal rep")').first();
    await item.waitFor({ timeout: 30000 });
    await item.click();
    const notes = page.locator('#root_snarerep_notes');
    await notes.waitFor({ timeout: 10000 });
    t.equal(await notes.inputValue(), 'North boundary km 12', 'its notes');
    t.equal(await page.locator('#root_snarerep_count').inputValue(), '4', 'its count');
    await page.getByText('Gin trap', { exact: true }).waitFor({ timeout: 5000 });
    await shot('8-report-opened');
  });

  await t.test('no uncaught page error, no 5xx, every 4xx explained', async (t) => {
    checkCalls(t, session, EXPLAINED_4XX);
  });
});

async function openAddModal(page: Page): Promise<void> {
  await page.locator('[data-testid="addItemButton"]').first().click();
  await page.waitForSelector('text=Add Event', { timeout: 10000 });
}
