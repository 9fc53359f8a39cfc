import { randomUUID } from 'node:crypto';
import t, { type Test } from 'tap';
import { ManualClock, type TestServer, dialect, startTestServer } from '../helpers/server.js';
import { send } from '../helpers/catalog.js';
import { UPLOADS, bytesOf, metadata, motoUnavailable, sha256, startMoto, tusHeaders } from './tus-support.js';

const EVENTS = '/api/v1.0/activity/events';
const EVENT = '/api/v1.0/activity/event';
const PATROLS = '/api/v1.0/activity/patrols';
const PUSH = '/api/fieldops/v1/sync/push';
// A PNG signature first: the content type is sniffed from the bytes, as for multipart uploads.
const PNG_HEAD = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489', 'hex');
const DAY = 24 * 3600_000;

async function attachSuite(t: Test, env: Record<string, string>) {
  const clock = new ManualClock(Date.now());
  const s = await startTestServer(t, { clock, env });
  if (!s) return;
  let token = (await s.login()).access_token;
  const { admin, database, fileSweeper, uploadSweep } = s.server.runtime;

  /** A finished upload (creation-with-upload) of `file`: its id. */
  const upload = async (file: Buffer, bearer = token, whole = true) => {
    const response = await s.request(UPLOADS, {
      method: 'POST',
      headers: tusHeaders(bearer, { 'Upload-Length': String(file.length), 'Upload-Metadata': metadata({ filename: 'fence.png', sha256: sha256(file) }), 'Content-Type': 'application/offset+octet-stream' }),
      body: whole ? file : file.subarray(0, 10),
    });
    t.equal(response.status, 201, 'uploaded');
    return response.headers.get('location')!.split('/').pop()!;
  };
  const push = async (entries: Array<{ op: string; id: string; body: unknown; key?: string }>, bearer = token) => {
    const response = await s.json(PUSH, send('POST', { entries: entries.map((entry) => ({ key: entry.key ?? randomUUID(), ...entry })) }, bearer));
    t.equal(response.status, 200, JSON.stringify(response.body));
    return response.body.outcomes as Array<Record<string, any>>;
  };
  const content = async (path: string, bearer = token) => {
    const response = await s.request(path, { token: bearer });
    return { status: response.status, type: response.headers.get('content-type'), bytes: Buffer.from(await response.arrayBuffer()) };
  };

  t.equal((await s.json('/api/v2.0/activity/eventtypes', send('POST', { value: 'sighting', display: 'Sighting' }, token))).status, 201);
  const event = (await s.json(EVENTS, send('POST', { event_type: 'sighting', event_details: {} }, token))).body;
  const otherEvent = (await s.json(EVENTS, send('POST', { event_type: 'sighting', event_details: {} }, token))).body;
  const patrol = (await s.json(PATROLS, send('POST', { title: 'Fence line' }, token))).body;
  const photo = Buffer.concat([PNG_HEAD, bytesOf(40_000, 21)]);

  await t.test('attach to an event: one file, downloadable through the event file endpoints', async (t) => {
    const id = await upload(photo);
    const fileId = randomUUID();
    const key = randomUUID();
    const [outcome] = await push([{ key, op: 'event.file', id: event.id, body: { id: fileId, upload: id, comment: 'Cut wire' } }]);
    t.match(outcome, { status: 'applied', http_status: 201, sha256: sha256(photo) }, 'the outcome carries the sha256');
    const downloaded = await content(`${EVENT}/${event.id}/file/${fileId}/content`);
    t.equal(downloaded.status, 200);
    t.equal(downloaded.type, 'image/png', 'sniffed');
    t.same(downloaded.bytes, photo, 'the uploaded bytes');
    const files = (await s.json(`${EVENT}/${event.id}/files`, { token })).body;
    t.match(files, [{ id: fileId, filename: 'fence.png', comment: 'Cut wire' }]);
    t.equal((await database.knex('file_uploads').where({ id }).first()).state, 'attached');
    const [again] = await push([{ op: 'event.file', id: event.id, body: { id: fileId, upload: id, comment: 'Cut wire' } }]);
    t.match(again, { http_status: 201, sha256: sha256(photo) }, 'the same attach again (another key): the same file');
    const [replayed] = await push([{ key, op: 'event.file', id: event.id, body: { id: fileId, upload: id, comment: 'Cut wire' } }]);
    t.equal(replayed!.status, 'replayed', 'the same key: replayed');
    t.equal((await s.json(`${EVENT}/${event.id}/files`, { token })).body.length, 1, 'still one file');

    const [elsewhere] = await push([{ op: 'event.file', id: otherEvent.id, body: { id: randomUUID(), upload: id } }]);
    t.match(elsewhere, { status: 'rejected', http_status: 409 }, 'not attachable to another event');
    const [asPatrolFile] = await push([{ op: 'patrol.file', id: patrol.id, body: { id: randomUUID(), upload: id } }]);
    t.match(asPatrolFile, { status: 'rejected', http_status: 409 }, 'nor to a patrol');
    const [otherFile] = await push([{ op: 'event.file', id: event.id, body: { id: randomUUID(), upload: id } }]);
    t.match(otherFile, { status: 'rejected', http_status: 409 }, 'nor as a second file of the same event');
    t.equal((await s.json(`${EVENT}/${otherEvent.id}/files`, { token })).body.length, 0);
  });

  await t.test('attach to a patrol: downloadable through the patrol file endpoints', async (t) => {
    const file = Buffer.concat([PNG_HEAD, bytesOf(20_000, 22)]);
    const id = await upload(file);
    const fileId = randomUUID();
    const [outcome] = await push([{ op: 'patrol.file', id: patrol.id, body: { id: fileId, upload: id, comment: 'Gate' } }]);
    t.match(outcome, { status: 'applied', http_status: 201, sha256: sha256(file) });
    const downloaded = await content(`${PATROLS}/${patrol.id}/files/${fileId}/content`);
    t.equal(downloaded.status, 200);
    t.same(downloaded.bytes, file);
    t.match((await s.json(`${PATROLS}/${patrol.id}/files`, { token })).body, [{ id: fileId, comment: 'Gate', filename: 'fence.png' }]);
  });

  await t.test('unfinished, unknown, malformed: refused, nothing attached', async (t) => {
    const partial = await upload(bytesOf(5000, 23), token, false);
    const [unfinished] = await push([{ op: 'event.file', id: event.id, body: { id: randomUUID(), upload: partial } }]);
    t.match(unfinished, { status: 'rejected', http_status: 409 }, 'an upload still receiving: 409');
    const [unknown] = await push([{ op: 'event.file', id: event.id, body: { id: randomUUID(), upload: '0'.repeat(32) } }]);
    t.match(unknown, { status: 'rejected', http_status: 404 });
    const [malformed] = await push([{ op: 'event.file', id: event.id, body: { id: 'not-a-uuid', upload: partial } }]);
    t.match(malformed, { status: 'rejected', http_status: 400 });
    t.equal((await s.json(`${EVENT}/${event.id}/files`, { token })).body.length, 1);
  });

  await t.test('tenant and user isolation: another tenant\'s or user\'s upload is not found', async (t) => {
    const id = await upload(bytesOf(3000, 24));
    await admin.createTenant('attach-other');
    await admin.createUser({ tenant: 'attach-other', username: 'attach.other', password: 'Bushbuck-Pass-5', superuser: true });
    await admin.createUser({ tenant: 'default', username: 'attach.peer', password: 'Bushbuck-Pass-6', superuser: true });
    const other = (await s.login('attach.other', 'Bushbuck-Pass-5')).access_token;
    const peer = (await s.login('attach.peer', 'Bushbuck-Pass-6')).access_token;
    await s.json('/api/v2.0/activity/eventtypes', send('POST', { value: 'sighting', display: 'Sighting' }, other));
    const theirs = (await s.json(EVENTS, send('POST', { event_type: 'sighting', event_details: {} }, other))).body;
    const [crossTenant] = await push([{ op: 'event.file', id: theirs.id, body: { id: randomUUID(), upload: id } }], other);
    t.match(crossTenant, { status: 'rejected', http_status: 404 }, 'another tenant: 404');
    const [onMine] = await push([{ op: 'event.file', id: event.id, body: { id: randomUUID(), upload: id } }], other);
    t.match(onMine, { status: 'rejected', http_status: 404 }, 'another tenant on our event: 404');
    const [peerAttach] = await push([{ op: 'event.file', id: event.id, body: { id: randomUUID(), upload: id } }], peer);
    t.match(peerAttach, { status: 'rejected', http_status: 404 }, 'another user of the tenant: 404');
    t.equal((await database.knex('file_uploads').where({ id }).first()).state, 'stored', 'still waiting for its owner');
  });

  await t.test('a stored upload keeps its bytes from the file sweeper; an attached one\'s row expires, its file stays', async (t) => {
    const file = bytesOf(4000, 25);
    const id = await upload(file);
    await database.knex('stored_file_removals').insert({ sha256: sha256(file), queued: 1 });
    t.equal(await fileSweeper.removeIfUnused(sha256(file)), false, 'referenced by the stored upload: kept');
    const fileId = randomUUID();
    const [outcome] = await push([{ op: 'event.file', id: event.id, body: { id: fileId, upload: id } }]);
    t.equal(outcome!.http_status, 201);
    clock.advance(8 * DAY);
    t.ok((await uploadSweep.sweepOnce()) >= 1);
    t.equal(await database.knex('file_uploads').where({ id }).first(), undefined, 'the attached upload\'s row is gone');
    token = (await s.login()).access_token;
    t.same((await content(`${EVENT}/${event.id}/file/${fileId}/content`)).bytes, file, 'the file is still there');
  });
}

t.test(`attach uploads to events and patrols, on disk (${dialect})`, (t) => attachSuite(t, {}));

t.test(`attach uploads to events and patrols, on S3 (moto_server) (${dialect})`, async (t) => {
  const reason = motoUnavailable();
  if (reason) {
    t.pass('skipped: ' + reason, { skip: reason });
    return;
  }
  const moto = await startMoto(t, 'fieldops-attach');
  await attachSuite(t, moto.env);
});
