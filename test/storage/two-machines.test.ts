import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { dialect } from '../helpers/database.js';
import { serveProcess } from '../helpers/serve-process.js';
import { databaseAndBucket } from './s3-server.js';

const P = '/api/v1.0/activity/patrols';
const PASSWORD = 'Two-Machines-Pass-1';
const sha = (data: Buffer | Uint8Array) => createHash('sha256').update(data).digest('hex');

/**
 * Two server processes with their own data directories (two machines), one database (on
 * SQLite: one file both open; on PostgreSQL: one database) and one object store (s3rver): a
 * file uploaded through one downloads through the other byte for byte, whole, by range, and by
 * a presigned redirect; neither data directory holds the bytes.
 */
t.test(`a file uploaded through one machine downloads through the other (${dialect})`, async (t) => {
  const setup = await databaseAndBucket(t);
  if (!setup) return;
  const { db, s3 } = setup;
  const dataDirs = [0, 1].map(() => fs.mkdtempSync(path.join(os.tmpdir(), 'fieldops-machine-')));
  t.teardown(() => dataDirs.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));
  const env = { ...s3.env, DATABASE_URL: db.location, FIELDOPS_ADMIN_PASSWORD: PASSWORD, FIELDOPS_FILE_STORE: `s3://${s3.bucket}/fieldops`, FIELDOPS_PATROL_SWEEP_SECONDS: '0' };
  const first = serveProcess({ ...env, FIELDOPS_DATA_DIR: dataDirs[0]! });
  const firstUrl = await first.url;
  const second = serveProcess({ ...env, FIELDOPS_DATA_DIR: dataDirs[1]! });
  const secondUrl = await second.url;
  const presigning = serveProcess({ ...env, FIELDOPS_DATA_DIR: dataDirs[1]!, FIELDOPS_S3_PRESIGN: 'true' });
  const presigningUrl = await presigning.url;
  t.teardown(async () => {
    for (const child of [first, second, presigning]) child.child.kill('SIGTERM');
    await Promise.all([first.exited, second.exited, presigning.exited]);
  });

  const login = await fetch(`${firstUrl}/oauth2/token/`, { method: 'POST', body: new URLSearchParams({ grant_type: 'password', client_id: 'fieldops-cli', username: 'admin', password: PASSWORD }) });
  const { access_token: token } = (await login.json()) as { access_token: string };
  const auth = { Authorization: `Bearer ${token}` };
  const patrol = (await (await fetch(firstUrl + P, { method: 'POST', headers: { ...auth, 'Content-Type': 'application/json' }, body: JSON.stringify({ title: 'files across machines' }) })).json()) as { id: string };

  const data = randomBytes(3 * 1024 * 1024 + 17);
  const form = new FormData();
  form.append('filecontent.file', new Blob([data]), 'track.bin');
  const uploaded = await fetch(`${firstUrl}${P}/${patrol.id}/files`, { method: 'POST', headers: auth, body: form });
  t.equal(uploaded.status, 201, 'uploaded through the first machine');
  const file = (await uploaded.json()) as { id: string; size: number };
  t.equal(file.size, data.length);
  const content = `${P}/${patrol.id}/files/${file.id}/content`;

  const whole = await fetch(secondUrl + content, { headers: auth });
  t.equal(whole.status, 200, 'downloaded through the second machine');
  t.equal(whole.headers.get('accept-ranges'), 'bytes');
  t.equal(sha(new Uint8Array(await whole.arrayBuffer())), sha(data), 'byte for byte');

  const part = await fetch(secondUrl + content, { headers: { ...auth, Range: 'bytes=1000-1999' } });
  t.equal(part.status, 206);
  t.equal(part.headers.get('content-range'), `bytes 1000-1999/${data.length}`);
  t.same(Buffer.from(await part.arrayBuffer()), data.subarray(1000, 2000), 'a range, exactly');
  const tail = await fetch(secondUrl + content, { headers: { ...auth, Range: 'bytes=-10' } });
  t.same(Buffer.from(await tail.arrayBuffer()), data.subarray(data.length - 10), 'a suffix range');
  const outside = await fetch(secondUrl + content, { headers: { ...auth, Range: `bytes=${data.length}-` } });
  t.equal(outside.status, 416);
  t.equal(outside.headers.get('content-range'), `bytes */${data.length}`);
  await outside.arrayBuffer();

  const redirected = await fetch(presigningUrl + content, { headers: auth, redirect: 'manual' });
  t.equal(redirected.status, 302, 'FIELDOPS_S3_PRESIGN: a redirect');
  const location = redirected.headers.get('location')!;
  t.ok(location.startsWith(s3.endpoint) && /X-Amz-Signature=/.test(location), 'to a presigned URL of the object store');
  const direct = await fetch(location);
  t.equal(direct.status, 200);
  t.equal(sha(new Uint8Array(await direct.arrayBuffer())), sha(data), 'the presigned URL serves the same bytes');
  const denied = await fetch(presigningUrl + content, { redirect: 'manual' });
  t.equal(denied.status, 401, 'no redirect without credentials');
  await denied.arrayBuffer();

  const onDisk = dataDirs.flatMap((dir) => (fs.readdirSync(dir, { recursive: true }) as string[]).filter((name) => name.includes(sha(data))));
  t.same(onDisk, [], 'no machine keeps the bytes in its data directory');
});
