import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import t from 'tap';
import { dialect, startTestServer } from '../helpers/server.js';
import { send } from '../helpers/catalog.js';

// Issue 13 item 5: an upload is admitted (authenticated, authorised, its patrol found in the
// caller's tenant, a slot free) before a byte of its body is read.
const P = '/api/v1.0/activity/patrols';
const BOUNDARY = 'fieldopsadmission';
const ANNOUNCED = 50 * 1024 * 1024;

interface PartialUpload {
  /** The status, or null when the server had not answered within the wait. */
  answer: Promise<{ status: number; headers: http.IncomingHttpHeaders } | null>;
  /** Bytes of the body written before the answer. */
  sent(): number;
  abort(): void;
}

/**
 * Announces a 50 MB multipart body and sends only its first `sendBytes`, then waits: an upload
 * the server refuses up front is answered at once; one it admits waits for the rest.
 */
function partialUpload(baseUrl: string, urlPath: string, token: string | null, sendBytes: number, waitMs = 1500): PartialUpload {
  const { hostname, port } = new URL(baseUrl);
  const headers: Record<string, string> = { 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}`, 'Content-Length': String(ANNOUNCED) };
  if (token) headers.Authorization = `Bearer ${token}`;
  const request = http.request({ host: hostname, port, method: 'POST', path: urlPath, headers });
  let written = 0;
  const answer = new Promise<{ status: number; headers: http.IncomingHttpHeaders } | null>((resolve) => {
    const timer = setTimeout(() => resolve(null), waitMs);
    request.on('response', (response) => {
      clearTimeout(timer);
      response.resume();
      resolve({ status: response.statusCode ?? 0, headers: response.headers });
    });
    request.on('error', () => {
      clearTimeout(timer);
      resolve(null);
    });
  });
  request.write(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="filecontent.file"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`);
  request.write(Buffer.alloc(sendBytes, 7));
  written = sendBytes;
  return { answer, sent: () => written, abort: () => request.destroy() };
}

function tempFiles(dataDir: string): string[] {
  const tmp = path.join(dataDir, 'files', 'tmp');
  return fs.existsSync(tmp) ? fs.readdirSync(tmp) : [];
}

async function until(condition: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

t.test(`uploads are refused before their body is read, and capped per principal (${dialect})`, async (t) => {
  const s = await startTestServer(t, { env: { FIELDOPS_MAX_FILE_BYTES: String(100 * 1024 * 1024), FIELDOPS_UPLOADS_PER_PRINCIPAL: '2', FIELDOPS_UPLOADS_TOTAL: '3' } });
  if (!s) return;
  const { admin, config, services } = { admin: s.server.runtime.admin, config: s.server.runtime.config, services: s.server.runtime.services };
  const token = (await s.login()).access_token;
  const patrol = (await s.json(P, send('POST', { title: 'Uploads' }, token))).body;
  await admin.createUser({ tenant: 'default', username: 'upload.viewer', password: 'Dik-Dik-Pass-3', permissions: ['view_patrol'] });
  await admin.createUser({ tenant: 'default', username: 'upload.ranger', password: 'Kudu-Ranger-Pass-8', permissions: ['view_patrol', 'change_patrol'] });
  await admin.createTenant('uploads-other');
  await admin.createUser({ tenant: 'uploads-other', username: 'uploads.other', password: 'Bushbuck-Pass-5', superuser: true });
  const viewer = (await s.login('upload.viewer', 'Dik-Dik-Pass-3')).access_token;
  const ranger = (await s.login('upload.ranger', 'Kudu-Ranger-Pass-8')).access_token;
  const other = (await s.login('uploads.other', 'Bushbuck-Pass-5')).access_token;

  await t.test('anonymous, unpermitted, unknown or foreign patrol: answered at once, nothing staged', async (t) => {
    const cases: Array<[string, string | null, string, number]> = [
      ['anonymous', null, patrol.id, 401],
      ['without change_patrol', viewer, patrol.id, 403],
      ['unknown patrol', token, '00000000-0000-4000-8000-000000000000', 404],
      ["another tenant's patrol", other, patrol.id, 404],
    ];
    for (const [label, caller, patrolId, status] of cases) {
      const upload = partialUpload(s.url, `${P}/${patrolId}/files`, caller, 256 * 1024);
      const answer = await upload.answer;
      t.equal(answer?.status, status, `${label}: ${status} after ${upload.sent()} of ${ANNOUNCED} bytes`);
      t.equal(answer?.headers.connection, 'close', `${label}: the connection is closed, not drained`);
      t.same(tempFiles(config.dataDir), [], `${label}: nothing staged`);
      upload.abort();
    }
  });

  await t.test('per principal and in total: 429 beyond the cap, slots given back', async (t) => {
    const held = [partialUpload(s.url, `${P}/${patrol.id}/files`, token, 64 * 1024, 60000), partialUpload(s.url, `${P}/${patrol.id}/files`, token, 64 * 1024, 60000)];
    await until(() => services.uploadSlots.active === 2, 'two admitted uploads');
    const third = partialUpload(s.url, `${P}/${patrol.id}/files`, token, 64 * 1024);
    const refused = await third.answer;
    t.equal(refused?.status, 429, 'a third upload of the same user is 429');
    t.equal(refused?.headers['retry-after'], '1');
    third.abort();

    const rangers = partialUpload(s.url, `${P}/${patrol.id}/files`, ranger, 64 * 1024, 60000);
    await until(() => services.uploadSlots.active === 3, "another user's upload admitted");
    const overTotal = partialUpload(s.url, `${P}/${patrol.id}/files`, ranger, 64 * 1024);
    t.equal((await overTotal.answer)?.status, 429, 'beyond the total: 429 for anyone');
    overTotal.abort();

    for (const upload of [...held, rangers]) upload.abort();
    await until(() => services.uploadSlots.active === 0, 'slots given back when the clients went away');
    await until(() => tempFiles(config.dataDir).length === 0, 'staged parts removed');
    const form = new FormData();
    form.append('filecontent.file', new Blob([Buffer.from('after the cap\n')]), 'ok.txt');
    t.equal((await s.json(`${P}/${patrol.id}/files`, { method: 'POST', body: form, token })).status, 201, 'uploads are admitted again');
    t.equal(services.uploadSlots.active, 0, 'and a finished upload gives its slot back');
  });
});
