import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import t from 'tap';
import { validateDocument, errorsOf } from '../../schema/index.js';
import { ManualClock, dialect, startTestServer, type TestServer } from '../helpers/server.js';
import type { DiskFileStore } from '../../server/storage/file-store.js';
import type { LeasedFileStore } from '../../server/storage/leased-store.js';
import { application, cameraForm, countRows, filesUnder, fixture, knexOf, userToken, variant } from './sensors-support.js';

const CAMERA = '/sensors/camera-trap/reconyx-north/status';

t.test(`camera traps (${dialect})`, async (t) => {
  const clock = new ManualClock();
  // Six concurrent uploads of one principal below: above the default per-principal upload cap.
  const s = await startTestServer(t, { clock, env: { FIELDOPS_UPLOADS_PER_PRINCIPAL: '8' } });
  if (!s) return;
  const admin = (await s.login()).access_token;
  // This file tests the default store, on disk (test/storage covers both stores).
  const store = (s.server.runtime.services.files as LeasedFileStore).inner as DiskFileStore;
  // The PostgreSQL run's data directory outlives the database: remove what we stored.
  t.teardown(() => {
    fs.rmSync(store.root, { recursive: true, force: true });
    try {
      fs.rmdirSync(path.dirname(store.root)); // only when empty: the data directory is the helper's
    } catch {}
  });
  const upload = (form: FormData, token: string | null = admin, url = CAMERA) => s.json(url, { method: 'POST', body: form, token: token ?? undefined });
  const eventOf = (id: string) => knexOf(s)('events').where({ id }).first();
  const filesOf = (id: string) => knexOf(s)('event_files').where({ event_id: id }).orderBy('created_at');
  const exif = fixture('camera-exif-offset.jpg');

  await t.test('a report: 201 with its group id, an event of priority 300 with the image attached', async (t) => {
    const image = variant(exif, 'first');
    const form = cameraForm(image, { camera_name: 'North gate', camera_description: 'Facing the waterhole', camera_version: '2.4', time: '2026-11-20T06:00:00+03:00', location: '{"latitude": -1.3, "longitude": 36.9}' });
    const { status, body } = await upload(form);
    t.equal(status, 201);
    t.same(body.status, { code: 201, message: 'Created' });
    t.match(body.data.group_id, /^[0-9a-f-]{36}$/);
    const event = await eventOf(body.data.group_id);
    t.match(event, { event_type: 'camera_trap_rep', title: 'Camera trap: North gate', priority: 300, state: 'new', latitude: -1.3, longitude: 36.9 });
    t.equal(Number(event.time), Date.parse('2026-11-20T03:00:00Z'), 'the form time wins over EXIF');
    t.same(JSON.parse(event.event_details), { provider: 'reconyx-north', camera_name: 'North gate', camera_description: 'Facing the waterhole', camera_version: '2.4' });
    const [file] = await filesOf(body.data.group_id);
    const sha256 = createHash('sha256').update(image).digest('hex');
    t.match(file, { sha256, size: image.length, content_type: 'image/jpeg', filename: 'IMG_0001.JPG' });
    t.same(fs.readFileSync(store.absolutePath(file.path)), image, 'the bytes are in the store at the recorded path');
    t.equal(file.path, `sha256/${sha256.slice(0, 2)}/${sha256.slice(2, 4)}/${sha256}`);

    const type = await knexOf(s)('event_types').where({ value: 'camera_trap_rep' });
    t.equal(type.length, 1, 'the event type was created on first use');
    t.match(type[0], { default_priority: 300, default_state: 'new' });
    t.same(errorsOf(validateDocument(JSON.parse(type[0].schema)).issues), [], 'with a valid v2 schema');
    const tenantId = (await s.server.runtime.store.repos.tenants.findByName('default'))!.id;
    const version = (await s.server.runtime.store.repos.catalog.version(tenantId, 'eventtypes')).version;
    t.ok(version >= 1, 'the eventtypes catalog moved');
    t.equal((await upload(cameraForm(variant(exif, 'second')), admin, `/api/v1.0${CAMERA}/`)).status, 201, 'under /api/v1.0 too');
    t.equal((await knexOf(s)('event_types').where({ value: 'camera_trap_rep' })).length, 1);
    t.equal((await s.server.runtime.store.repos.catalog.version(tenantId, 'eventtypes')).version, version, 'created once only');
  });

  await t.test('the time comes from EXIF when the form has none', async (t) => {
    const cases: Array<[string, Buffer, number]> = [
      ['DateTimeOriginal with OffsetTimeOriginal and subseconds', variant(exif, 'offset'), Date.parse('2026-11-19T05:30:00.250Z')],
      ['DateTimeOriginal alone is read as UTC', variant(fixture('camera-exif-local.jpg'), 'local'), Date.parse('2026-11-18T22:15:10Z')],
      ['no EXIF: the time of receipt', variant(fixture('camera-no-exif.jpg'), 'none'), clock.now()],
    ];
    for (const [name, image, expected] of cases) {
      const { status, body } = await upload(cameraForm(image));
      t.equal(status, 201, name);
      t.equal(Number((await eventOf(body.data.group_id)).time), expected, name);
    }
  });

  await t.test('group_id appends to an existing report; unknown is 404; the same image is 409', async (t) => {
    const first = await upload(cameraForm(variant(exif, 'burst-1'), { camera_name: 'Burst' }));
    const groupId = first.body.data.group_id;
    clock.advance(1000);
    const second = await upload(cameraForm(variant(exif, 'burst-2'), { group_id: groupId }, 'IMG_0002.JPG'));
    t.same([second.status, second.body.data.group_id], [201, groupId]);
    t.same((await filesOf(groupId)).map((f: { filename: string }) => f.filename), ['IMG_0001.JPG', 'IMG_0002.JPG']);
    t.equal(Number((await eventOf(groupId)).updated_at), clock.now(), 'the report was touched');
    const events = await countRows(s, 'events');
    for (const unknown of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
      const response = await upload(cameraForm(variant(exif, `orphan-${unknown}`), { group_id: unknown }));
      t.equal(response.status, 404, unknown);
      t.equal(response.body.status.code, 404);
    }
    const again = await upload(cameraForm(variant(exif, 'burst-1')));
    t.equal(again.status, 409, 'the same image again');
    t.equal(again.body.status.code, 409);
    t.equal((await upload(cameraForm(variant(exif, 'burst-2'), { group_id: groupId }))).status, 409, 'also when appending');
    t.equal(await countRows(s, 'events'), events, 'no event from a refused report');
  });

  await t.test('concurrent identical uploads: one 201, the rest 409', async (t) => {
    const image = variant(exif, 'concurrent');
    const responses = await Promise.all(Array.from({ length: 6 }, () => upload(cameraForm(image))));
    t.same(responses.map((r) => r.status).sort(), [201, 409, 409, 409, 409, 409]);
    const sha256 = createHash('sha256').update(image).digest('hex');
    t.equal(await countRows(s, 'event_files', { sha256 }), 1);
  });

  await t.test('bad reports are 4xx', async (t) => {
    const cases: Array<[string, FormData | URLSearchParams, number, string]> = [
      ['no file', cameraForm(null, { camera_name: 'x' }), 400, 'filecontent.file'],
      ['not an image', cameraForm(Buffer.from('just some text, not a picture')), 400, 'filecontent.file'],
      ['time without offset', cameraForm(variant(exif, 'b1'), { time: '2026-11-20T06:00:00' }), 400, 'time'],
      ['location not JSON', cameraForm(variant(exif, 'b2'), { location: 'north' }), 400, 'location'],
      ['location out of range', cameraForm(variant(exif, 'b3'), { location: '{"latitude": 95, "longitude": 0}' }), 400, 'location'],
      ['camera_name too long', cameraForm(variant(exif, 'b4'), { camera_name: 'c'.repeat(101) }), 400, 'camera_name'],
      ['a form, not multipart', new URLSearchParams({ camera_name: 'x' }), 415, 'status'],
    ];
    for (const [name, form, status, key] of cases) {
      const response = await s.json(CAMERA, { method: 'POST', body: form, token: admin });
      t.equal(response.status, status, name);
      t.ok(key in response.body, `${name}: ${JSON.stringify(response.body)}`);
    }
    const wrongField = new FormData();
    wrongField.append('image', new Blob([variant(exif, 'b5')]), 'x.jpg');
    t.equal((await upload(wrongField)).status, 400, 'a file in another field');
    t.same(filesUnder(store.tempDir), [], 'nothing staged is left');
  });

  await t.test('an oversized image is 413 and leaves nothing behind', async (t) => {
    const before = filesUnder(path.join(store.root, 'sha256')).length;
    const huge = Buffer.concat([exif, randomBytes(25 * 1024 * 1024)]);
    const response = await upload(cameraForm(huge));
    t.equal(response.status, 413);
    t.same(filesUnder(store.tempDir), []);
    t.equal(filesUnder(path.join(store.root, 'sha256')).length, before);
  });

  await t.test('an interrupted upload leaves no file behind', async (t) => {
    const before = filesUnder(path.join(store.root, 'sha256')).length;
    const sawTemp = await interruptUpload(s, admin, store.tempDir);
    t.ok(sawTemp, 'the upload was being received into a temporary file');
    let left = filesUnder(store.tempDir);
    for (let i = 0; i < 50 && left.length > 0; i++) {
      await delay(50);
      left = filesUnder(store.tempDir);
    }
    t.same(left, [], 'the temporary file is gone');
    t.equal(filesUnder(path.join(store.root, 'sha256')).length, before, 'and nothing was stored');
    t.equal((await upload(cameraForm(variant(exif, 'after-interrupt')))).status, 201, 'the server carries on');
  });

  await t.test('principals and tenants', async (t) => {
    t.equal((await upload(cameraForm(variant(exif, 'p1')), null)).status, 401);
    const viewer = await userToken(s, 'camera.viewer', ['view_observation']);
    t.equal((await upload(cameraForm(variant(exif, 'p2')), viewer)).status, 403);
    const gateway = await application(s, 'camera-gateway', ['add_observation']);
    t.equal((await upload(cameraForm(variant(exif, 'p3')), null, `${CAMERA}?client_id=${gateway}`)).status, 201);
    const { admin: adminService } = s.server.runtime;
    await adminService.createTenant('south');
    await adminService.createUser({ tenant: 'south', username: 'south.root', password: 'South-Camera-Pass-1', superuser: true });
    const south = (await s.login('south.root', 'South-Camera-Pass-1')).access_token;
    const mine = await upload(cameraForm(variant(exif, 'tenant-image')));
    t.equal(mine.status, 201);
    t.equal((await upload(cameraForm(variant(exif, 'tenant-image')), south)).status, 201, 'the same image is new in another tenant');
    t.equal((await upload(cameraForm(variant(exif, 'south-2'), { group_id: mine.body.data.group_id }), south)).status, 404, "another tenant's report is 404");
  });

  await t.test('no request ended in a 5xx', async (t) => {
    t.notMatch(s.logs(), /"status":5\d\d/);
  });
});

/** Starts a multipart upload, waits until the server stages it, then cuts the connection. */
async function interruptUpload(s: TestServer, token: string, tempDir: string): Promise<boolean> {
  const boundary = `----fieldops${randomBytes(8).toString('hex')}`;
  const head = `--${boundary}\r\nContent-Disposition: form-data; name="camera_name"\r\n\r\nCut\r\n--${boundary}\r\n`
    + 'Content-Disposition: form-data; name="filecontent.file"; filename="cut.jpg"\r\nContent-Type: image/jpeg\r\n\r\n';
  const url = new URL(CAMERA, s.url);
  const request = http.request({
    host: url.hostname, port: url.port, path: url.pathname, method: 'POST',
    headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}`, 'Content-Length': String(5 * 1024 * 1024), Authorization: `Bearer ${token}` },
  });
  request.on('error', () => {});
  request.write(head);
  request.write(Buffer.concat([fixture('camera-exif-offset.jpg'), randomBytes(256 * 1024)]));
  let sawTemp = false;
  for (let i = 0; i < 40 && !sawTemp; i++) {
    await delay(25);
    sawTemp = filesUnder(tempDir).length > 0;
  }
  request.destroy();
  return sawTemp;
}
