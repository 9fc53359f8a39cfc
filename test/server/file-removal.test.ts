import { createHash, randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { parseFileStore } from '../../server/config.js';
import { relativePathOf } from '../../server/storage/file-store.js';
import { S3FileStore } from '../../server/storage/s3-store.js';
import { send } from '../helpers/catalog.js';
import { repoRoot } from '../helpers/cli.js';
import { dialect, startTestServer, type TestServer } from '../helpers/server.js';
import { startS3Server } from '../storage/s3-server.js';

const E = '/api/v1.0/activity/events';
const ONE = '/api/v1.0/activity/event';
const P = '/api/v1.0/activity/patrols';
const sha = (data: Buffer) => createHash('sha256').update(data).digest('hex');

/**
 * Issue 24, item 5: deleting an event file, or an event, removes the bytes from the file store
 * (disk, or a bucket on a real S3 protocol server) once no row of any tenant refers to them,
 * and only then. The periodic sweep is off: what is tested is the removal a deletion does.
 */
async function serverWith(t: Test, kind: 'disk' | 's3', s3: Awaited<ReturnType<typeof startS3Server>>) {
  const url = `s3://${s3.bucket}/http-${randomUUID()}`;
  const env: Record<string, string> = { FIELDOPS_FILE_SWEEP_SECONDS: '0', ...(kind === 's3' ? { ...s3.env, FIELDOPS_FILE_STORE: url } : {}) };
  const s = await startTestServer(t, { env });
  if (!s) return null;
  const config = s.server.runtime.config.fileStore;
  let present: (data: Buffer) => Promise<boolean>;
  if (config.kind === 'file') {
    // The PostgreSQL run's data directory outlives the database: remove what we stored.
    t.teardown(() => fs.rmSync(config.dir, { recursive: true, force: true }));
    present = async (data) => fs.existsSync(path.join(config.dir, relativePathOf(sha(data))));
  } else {
    // Asked of the bucket by a client of its own, not through the server's store.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fieldops-removal-'));
    const parsed = parseFileStore(url, dir, s3.env);
    if (parsed.kind !== 's3') throw new Error('expected s3');
    const bucket = await S3FileStore.open(parsed, dir);
    t.teardown(() => {
      bucket.close();
      fs.rmSync(dir, { recursive: true, force: true });
    });
    present = (data) => bucket.has(sha(data));
  }
  const token = (await s.login()).access_token;
  t.equal((await s.json('/api/v2.0/activity/eventtypes', send('POST', { value: 'sighting', display: 'Sighting' }, token))).status, 201);
  return { s, token, present };
}

async function newEvent(s: TestServer, token: string): Promise<string> {
  const created = await s.json(E, send('POST', { event_type: 'sighting', event_details: {} }, token));
  if (created.status !== 201) throw new Error(`event: ${created.status} ${JSON.stringify(created.body)}`);
  return created.body.id;
}

async function attach(s: TestServer, token: string, eventId: string, data: Buffer): Promise<{ id: string; url: string }> {
  const form = new FormData();
  form.append('filecontent.file', new Blob([data]), 'photo.bin');
  const uploaded = await s.json(`${ONE}/${eventId}/files/`, { method: 'POST', body: form, token });
  if (uploaded.status !== 201) throw new Error(`upload: ${uploaded.status} ${JSON.stringify(uploaded.body)}`);
  return uploaded.body;
}

async function download(s: TestServer, token: string, file: { url: string }): Promise<{ status: number; body: Buffer }> {
  const response = await s.request(new URL(file.url).pathname, { token });
  return { status: response.status, body: Buffer.from(await response.arrayBuffer()) };
}

t.test(`deleted files' bytes leave the store (${dialect})`, async (t) => {
  const s3 = await startS3Server();
  t.teardown(() => s3.close());

  for (const kind of ['disk', 's3'] as const) {
    await t.test(`${kind}: deleting an event file, or an event with files, removes their bytes`, async (t) => {
      const setup = await serverWith(t, kind, s3);
      if (!setup) return;
      const { s, token, present } = setup;
      const event = await newEvent(s, token);
      const photo = randomBytes(4000);
      const file = await attach(s, token, event, photo);
      t.ok(await present(photo), 'stored');
      t.equal((await s.request(`${ONE}/${event}/file/${file.id}`, { method: 'DELETE', token })).status, 204);
      t.notOk(await present(photo), 'a deleted event file\'s bytes are gone');

      const doomed = await newEvent(s, token);
      const [first, second] = [randomBytes(1500), randomBytes(1600)];
      await attach(s, token, doomed, first);
      await attach(s, token, doomed, second);
      const camera = new FormData();
      const image = Buffer.concat([fs.readFileSync(path.join(repoRoot, 'fixtures/sensors/camera-no-exif.jpg')), randomBytes(16)]);
      camera.append('filecontent.file', new Blob([image]), 'cam.jpg');
      const report = await s.json('/sensors/camera-trap/removal-cam/status', { method: 'POST', body: camera, token });
      t.equal(report.status, 201, JSON.stringify(report.body));
      t.ok((await present(first)) && (await present(second)) && (await present(image)));
      t.equal((await s.request(`${ONE}/${doomed}`, { method: 'DELETE', token })).status, 204);
      t.notOk(await present(first), 'a deleted event\'s files are gone');
      t.notOk(await present(second));
      t.equal((await s.request(`${ONE}/${report.body.data.group_id}`, { method: 'DELETE', token })).status, 204);
      t.notOk(await present(image), 'a deleted camera-trap report\'s image is gone');

      const again = await attach(s, token, event, photo);
      t.ok(await present(photo), 'the same bytes uploaded after their deletion are stored again');
      t.same(await download(s, token, again), { status: 200, body: photo }, 'and served');
    });

    await t.test(`${kind}: bytes shared by events, a patrol file and another tenant stay until the last reference goes`, async (t) => {
      const setup = await serverWith(t, kind, s3);
      if (!setup) return;
      const { s, token, present } = setup;
      const { admin } = s.server.runtime;
      const shared = randomBytes(5000);
      const [one, two] = [await newEvent(s, token), await newEvent(s, token)];
      const a = await attach(s, token, one, shared);
      const b = await attach(s, token, two, shared);

      await admin.createTenant('south');
      await admin.createUser({ tenant: 'south', username: 'south.lead', password: 'Southern-Cross-Pass-3', superuser: true });
      const south = (await s.login('south.lead', 'Southern-Cross-Pass-3')).access_token;
      t.equal((await s.json('/api/v2.0/activity/eventtypes', send('POST', { value: 'sighting', display: 'Sighting' }, south))).status, 201);
      const theirEvent = await newEvent(s, south);
      const theirs = await attach(s, south, theirEvent, shared);

      const patrol = (await s.json(P, send('POST', { title: 'shared bytes' }, token))).body;
      const form = new FormData();
      form.append('filecontent.file', new Blob([shared]), 'track.bin');
      const patrolFile = (await s.json(`${P}/${patrol.id}/files`, { method: 'POST', body: form, token })).body;

      t.equal((await s.request(`${ONE}/${one}/file/${a.id}`, { method: 'DELETE', token })).status, 204);
      t.ok(await present(shared), 'kept: the other event, the patrol file and the other tenant refer to them');
      t.same(await download(s, token, b), { status: 200, body: shared });
      t.equal((await s.request(`${ONE}/${two}`, { method: 'DELETE', token })).status, 204);
      t.ok(await present(shared), 'kept: the patrol file and the other tenant');
      const content = await s.request(`${P}/${patrol.id}/files/${patrolFile.id}/content`, { token });
      t.equal(content.status, 200);
      t.same(Buffer.from(await content.arrayBuffer()), shared, 'the patrol file downloads');
      t.same(await download(s, south, theirs), { status: 200, body: shared }, 'the other tenant\'s file downloads');

      // The patrol file cannot be deleted; without it, the other tenant's deletion would remove them.
      await s.server.runtime.database.knex('patrol_files').where({ id: patrolFile.id }).delete();
      t.equal((await s.request(`${ONE}/${theirEvent}/file/${theirs.id}`, { method: 'DELETE', token: south })).status, 204);
      t.notOk(await present(shared), 'the last reference gone: removed');
    });
  }
});
