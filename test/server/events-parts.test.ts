import http from 'node:http';
import t from 'tap';
import { dialect, startTestServer } from '../helpers/server.js';
import { send } from '../helpers/catalog.js';

const E = '/api/v1.0/activity/events';
const ONE = '/api/v1.0/activity/event';
const V1_TYPE = JSON.stringify({
  schema: {
    $schema: 'http://json-schema.org/draft-04/schema#', title: 'Wildlife', type: 'object', required: ['species'],
    properties: {
      species: { type: 'string', title: 'Species', enum: '{{enum___species___values}}', enumNames: '{{enum___species___names}}' },
      count: { type: 'number', title: 'Count', minimum: 1, exclusiveMinimum: true },
    },
  },
  definition: ['species', 'count'],
}).replace(/"(\{\{[^}]+\}\})"/g, '$1');

/** Sends the head of a large upload and never the rest: the answer must not wait for the body. */
function stalledUpload(url: string, token: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method: 'POST', headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'multipart/form-data; boundary=x', 'Content-Length': String(40 * 1024 * 1024) } });
    request.on('response', (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
      request.destroy();
    });
    request.on('error', (error) => (error.message.includes('socket hang up') ? undefined : reject(error)));
    request.write('--x\r\nContent-Disposition: form-data; name="filecontent.file"; filename="big.bin"\r\n\r\n' + 'x'.repeat(1024));
    setTimeout(() => {
      request.destroy();
      resolve(-1);
    }, 5000).unref();
  });
}

t.test(`events family: notes, files, v1 event types, permissions (${dialect})`, async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const { admin } = s.server.runtime;
  const token = (await s.login()).access_token;
  t.equal((await s.json('/api/v2.0/activity/eventtypes', send('POST', { value: 'sighting', display: 'Sighting' }, token))).status, 201);
  const event = (await s.json(E, send('POST', { event_type: 'sighting', event_details: {} }, token))).body;
  const etag = async () => (await s.request(`${ONE}/${event.id}`, { token })).headers.get('etag');

  await t.test('notes: create as the clients send them, list, read, change, delete; each moves the ETag and is in updates', async (t) => {
    const before = await etag();
    const created = await s.json(`${ONE}/${event.id}/notes`, send('POST', { event: event.id, text: 'Tracks by the gate' }, token));
    t.equal(created.status, 201, JSON.stringify(created.body));
    t.match(created.body, { text: 'Tracks by the gate', event: event.id, created_by: { username: 'admin' } });
    t.not(await etag(), before, 'a note moves the event\'s ETag');
    const noteUrl = `${ONE}/${event.id}/note/${created.body.id}`;
    t.equal((await s.json(noteUrl, { token })).body.text, 'Tracks by the gate');
    t.equal((await s.json(noteUrl, send('PATCH', { text: 'Tracks by the east gate' }, token))).body.text, 'Tracks by the east gate');
    t.equal((await s.json(`${ONE}/${event.id}/notes`, send('POST', { text: '' }, token))).status, 400, 'a blank note');
    t.equal((await s.json(`${ONE}/${event.id}/notes`, send('POST', { text: 'x'.repeat(10_001) }, token))).status, 400, 'too long');
    const second = (await s.json(`${ONE}/${event.id}/notes`, send('POST', { text: 'Second' }, token))).body;
    t.same((await s.json(`${ONE}/${event.id}/notes`, { token })).body.map((note: { text: string }) => note.text), ['Tracks by the east gate', 'Second']);
    t.equal((await s.request(`${ONE}/${event.id}/note/${second.id}`, { method: 'DELETE', token })).status, 204);
    t.equal((await s.request(`${ONE}/${event.id}/note/${second.id}`, { token })).status, 404);
    const detail = (await s.json(`${ONE}/${event.id}`, { token })).body;
    t.same(detail.notes.map((note: { text: string }) => note.text), ['Tracks by the east gate'], 'the event carries its notes');
    t.same(detail.updates.map((u: { type: string }) => u.type).slice(0, 4), ['delete_note', 'add_note', 'update_note', 'add_note']);
    t.equal((await s.request(`${ONE}/${event.id}/note/00000000-0000-4000-8000-000000000000`, { token })).status, 404, 'no such note');
    const other = (await s.json(E, send('POST', { event_type: 'sighting', event_details: {} }, token))).body;
    t.equal((await s.request(`${ONE}/${other.id}/note/${created.body.id}`, { token })).status, 404, 'a note of another event');
  });

  await t.test('files: multipart filecontent.file + comment, metadata, download, delete', async (t) => {
    const bytes = Buffer.from('%PDF-1.4 a small document\n');
    const form = new FormData();
    form.append('filecontent.file', new Blob([bytes]), 'report.pdf');
    form.append('comment', 'Ranger report');
    const uploaded = await s.json(`${ONE}/${event.id}/files/`, { method: 'POST', body: form, token });
    t.equal(uploaded.status, 201, JSON.stringify(uploaded.body));
    t.match(uploaded.body, { filename: 'report.pdf', comment: 'Ranger report', size: bytes.length, file_type: 'application/pdf' });
    const meta = await s.json(`${ONE}/${event.id}/file/${uploaded.body.id}`, { token });
    t.equal(meta.body.url, uploaded.body.url);
    const download = await s.request(new URL(uploaded.body.url).pathname, { token });
    t.equal(download.status, 200);
    t.same(Buffer.from(await download.arrayBuffer()), bytes, 'the same bytes back');
    t.match(download.headers.get('content-disposition'), /^attachment/);
    t.equal((await s.json(`${ONE}/${event.id}`, { token })).body.files[0].comment, 'Ranger report');
    const bad = new FormData();
    bad.append('filecontent.file', new Blob([bytes]), 'x.pdf');
    bad.append('colour', 'red');
    t.equal((await s.json(`${ONE}/${event.id}/files/`, { method: 'POST', body: bad, token })).status, 400, 'unknown form fields');
    const none = new FormData();
    none.append('comment', 'no file');
    t.equal((await s.json(`${ONE}/${event.id}/files/`, { method: 'POST', body: none, token })).status, 400, 'no file');
    t.equal((await s.request(`${ONE}/${event.id}/file/${uploaded.body.id}`, { method: 'DELETE', token })).status, 204);
    t.equal((await s.request(`${ONE}/${event.id}/file/${uploaded.body.id}`, { token })).status, 404);
    t.same((await s.json(`${ONE}/${event.id}/files`, { token })).body, []);
  });

  await t.test('v1 event types: details validated against the rendered draft-04 schema', async (t) => {
    for (const [value, display] of [['lion', 'Lion'], ['eland', 'Eland']]) await s.json('/api/v2.0/choices', send('POST', { field: 'species', value, display }, token));
    const v1 = await s.json('/api/v1.0/activity/events/eventtypes', send('POST', { value: 'wildlife_v1', display: 'Wildlife', default_priority: 200, schema: V1_TYPE }, token));
    t.equal(v1.status, 201, JSON.stringify(v1.body));
    const good = await s.json(E, send('POST', { event_type: 'wildlife_v1', event_details: { species: 'lion', count: 2 } }, token));
    t.equal(good.status, 201, JSON.stringify(good.body));
    t.match(good.body, { event_type: 'wildlife_v1', title: 'Wildlife', priority: 200, state: 'new' });
    const bad = await s.json(E, send('POST', { event_type: 'wildlife_v1', event_details: { species: 'dragon', count: 1 } }, token));
    t.equal(bad.status, 400);
    const pointers = bad.body.event_details.map((issue: { pointer: string }) => issue.pointer).sort();
    t.same(pointers, ['/count', '/species'], 'the unknown choice, and count not above the exclusive minimum (a draft-04 boolean)');
    t.equal((await s.json(E, send('POST', { event_type: 'wildlife_v1', event_details: { count: 3 } }, token))).status, 400, 'required');
    t.equal((await s.json(`${ONE}/${good.body.id}`, send('PATCH', { event_details: { species: 'eland' } }, token))).status, 200, 'a PATCH is validated too');
    t.equal((await s.json(`${ONE}/${good.body.id}`, send('PATCH', { event_details: { species: 'unicorn' } }, token))).status, 400);
  });

  await t.test('permissions: view/add/change/delete_event; uploads refused before their bytes are read', async (t) => {
    const make = async (username: string, permissions: string[]) => {
      await admin.createUser({ tenant: 'default', username, password: 'Events-Perm-Pass-1', permissions });
      return (await s.login(username, 'Events-Perm-Pass-1')).access_token;
    };
    const viewer = await make('events.viewer', ['view_event']);
    const changer = await make('events.changer', ['view_event', 'change_event']);
    t.equal((await s.request(`${ONE}/${event.id}`, { token: viewer })).status, 200);
    t.equal((await s.json(`${ONE}/${event.id}`, send('PATCH', { state: 'active' }, viewer))).status, 403);
    t.equal((await s.json(`${ONE}/${event.id}/notes`, send('POST', { text: 'no' }, viewer))).status, 403);
    t.equal(await stalledUpload(`${s.url}${ONE}/${event.id}/files/`, viewer), 403, 'refused without waiting for the body');
    t.equal(await stalledUpload(`${s.url}${ONE}/00000000-0000-4000-8000-000000000000/files/`, changer), 404, 'no such event: refused without waiting for the body');
    t.equal((await s.request(`${ONE}/${event.id}`, { method: 'DELETE', token: changer })).status, 403, 'DELETE needs delete_event');
    t.equal((await s.request(`${ONE}/${event.id}`, { token })).status, 200, 'still there');
    const deleter = await make('events.deleter', ['delete_event']);
    t.equal((await s.request(`${ONE}/${event.id}`, { method: 'DELETE', token: deleter })).status, 204);
    t.equal((await s.request(`${ONE}/${event.id}/notes`, { token })).status, 404, 'its notes went with it');
  });
});
