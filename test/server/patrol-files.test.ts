import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import t from 'tap';
import { dialect, startTestServer } from '../helpers/server.js';
import { send } from '../helpers/catalog.js';

const P = '/api/v1.0/activity/patrols';
// The 8-byte PNG signature and an IHDR chunk header: enough for sniffing.
const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489', 'hex');

function listFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile()).map((entry) => path.join(entry.parentPath ?? '', entry.name));
}

t.test(`patrol files: upload, sniffing, download, limits, interrupted uploads (${dialect})`, async (t) => {
  const s = await startTestServer(t, { env: { FIELDOPS_MAX_FILE_BYTES: '65536' } });
  if (!s) return;
  const token = (await s.login()).access_token;
  const patrol = (await s.json(P, send('POST', { title: 'With files' }, token))).body;
  const filesRoot = path.join(s.server.runtime.config.dataDir, 'files');
  const upload = (content: Buffer, filename: string, fields: Record<string, string> = {}, patrolId = patrol.id) => {
    const form = new FormData();
    form.append('filecontent.file', new Blob([content]), filename);
    for (const [key, value] of Object.entries(fields)) form.append(key, value);
    return s.json(`${P}/${patrolId}/files`, { method: 'POST', body: form, token });
  };

  await t.test('upload: content type sniffed from the bytes, not the name', async (t) => {
    const created = await upload(PNG, 'report.txt', { comment: 'Fence photo', ordernum: '2' });
    t.equal(created.status, 201, JSON.stringify(created.body));
    t.match(created.body, { filename: 'report.txt', file_type: 'image/png', size: PNG.length, comment: 'Fence photo', ordernum: 2, usercontent_type: 'activity.patrolfile' });
    t.equal(created.body.usercontent_id, created.body.id);
    const content = await s.request(`${P}/${patrol.id}/files/${created.body.id}/content`, { token });
    t.equal(content.status, 200);
    t.equal(content.headers.get('content-type'), 'image/png');
    t.equal(content.headers.get('x-content-type-options'), 'nosniff');
    t.match(content.headers.get('content-disposition'), /^attachment; filename="report.txt"; filename\*=UTF-8''report.txt$/);
    t.same(Buffer.from(await content.arrayBuffer()), PNG, 'the same bytes back');
    const again = await upload(PNG, 'copy.png');
    t.equal(again.status, 201, 'the same bytes twice: two files, one stored copy');
    t.equal(listFiles(filesRoot).filter((file) => !path.relative(filesRoot, file).startsWith('tmp')).length, 1);
    const text = await upload(Buffer.from('plain words\n'), 'évidence 1.png');
    t.not(text.body.file_type, 'image/png', 'a .png name does not make text an image');
    const download = await s.request(`${P}/${patrol.id}/files/${text.body.id}/content`, { token });
    t.equal(download.headers.get('content-type'), text.body.file_type);
    t.match(download.headers.get('content-disposition'), /filename="_vidence 1.png"; filename\*=UTF-8''%C3%A9vidence%201.png/, 'a UTF-8 name survives');
  });

  await t.test('list, metadata update, patrol payload', async (t) => {
    const list = await s.json(`${P}/${patrol.id}/files`, { token });
    t.equal(list.body.length, 3);
    t.equal(list.body[0].ordernum, 2, 'ordered by ordernum first');
    const id = list.body[1].id;
    const patched = await s.json(`${P}/${patrol.id}/files/${id}`, send('PATCH', { comment: 'Renamed', ordernum: 1 }, token));
    t.equal(patched.status, 200);
    t.match(patched.body, { comment: 'Renamed', ordernum: 1 });
    t.equal((await s.json(`${P}/${patrol.id}/files/${id}`, send('PATCH', { ordernum: 'first' }, token))).status, 400);
    t.equal((await s.json(`${P}/${patrol.id}`, { token })).body.files.length, 3, 'files appear in the patrol');
  });

  await t.test('bad uploads: no file, too large, not multipart, unknown patrol, cross tenant', async (t) => {
    const form = new FormData();
    form.append('comment', 'no file');
    t.equal((await s.json(`${P}/${patrol.id}/files`, { method: 'POST', body: form, token })).status, 400);
    const big = await upload(Buffer.alloc(70000, 1), 'big.bin');
    t.equal(big.status, 413);
    t.equal((await s.json(`${P}/${patrol.id}/files`, send('POST', { comment: 'json' }, token))).status, 415);
    t.equal((await upload(PNG, 'x.png', {}, '00000000-0000-4000-8000-000000000000')).status, 404);
    await s.server.runtime.admin.createTenant('files-other');
    await s.server.runtime.admin.createUser({ tenant: 'files-other', username: 'files.other', password: 'Bushbuck-Pass-5', superuser: true });
    const other = (await s.login('files.other', 'Bushbuck-Pass-5')).access_token;
    const first = (await s.json(`${P}/${patrol.id}/files`, { token })).body[0];
    t.equal((await s.request(`${P}/${patrol.id}/files/${first.id}/content`, { token: other })).status, 404);
    t.equal(listFiles(path.join(filesRoot, 'tmp')).length, 0, 'no temporary files left by the failures');
  });

  await t.test('an interrupted upload leaves nothing behind', async (t) => {
    const before = (await s.json(`${P}/${patrol.id}/files`, { token })).body.length;
    const { port, hostname } = new URL(s.url);
    const boundary = 'fieldopsboundary';
    await new Promise<void>((resolve) => {
      const request = http.request({ host: hostname, port, method: 'POST', path: `${P}/${patrol.id}/files`, headers: { Authorization: `Bearer ${token}`, 'Content-Type': `multipart/form-data; boundary=${boundary}`, 'Content-Length': '100000' } });
      request.on('error', () => resolve());
      request.write(`--${boundary}\r\nContent-Disposition: form-data; name="filecontent.file"; filename="half.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`);
      request.write(Buffer.alloc(20000, 7));
      setTimeout(() => {
        request.destroy();
        resolve();
      }, 200);
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    t.equal((await s.json(`${P}/${patrol.id}/files`, { token })).body.length, before, 'no file row');
    t.equal(listFiles(path.join(filesRoot, 'tmp')).length, 0, 'no temporary file');
  });
});
