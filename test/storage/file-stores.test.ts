import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { parseFileStore } from '../../server/config.js';
import { DiskFileStore } from '../../server/storage/file-store.js';
import { S3FileStore } from '../../server/storage/s3-store.js';
import { fileStoreConformance } from './conformance.js';
import { startS3Server } from './s3-server.js';

const tempDir = (t: Test) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fieldops-store-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
};

t.test('DiskFileStore passes the file store conformance suite', (t) => fileStoreConformance(t, async (t) => DiskFileStore.open(tempDir(t))));

t.test('S3FileStore passes the file store conformance suite (against s3rver)', async (t) => {
  const s3 = await startS3Server();
  t.teardown(() => s3.close());
  let n = 0;
  await fileStoreConformance(t, async (t) => {
    // A fresh prefix per subtest: each starts with an empty store.
    const config = parseFileStore(`s3://${s3.bucket}/run-${++n}`, '/unused', s3.env);
    if (config.kind !== 's3') throw new Error('expected s3');
    const store = await S3FileStore.open(config, tempDir(t));
    t.teardown(() => store.close());
    return store;
  });
});

t.test('S3FileStore.remove gives up when its signal fires: a bucket that takes the request and never answers', async (t) => {
  let received: () => void = () => {};
  const reached = new Promise<void>((resolve) => (received = resolve));
  const requests: string[] = [];
  const silent = http.createServer((request) => {
    requests.push(request.method ?? '');
    received();
  });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => (silent.closeAllConnections(), silent.close(() => resolve()))));
  const endpoint = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
  const config = parseFileStore('s3://silent-bucket/p', '/unused', { FIELDOPS_S3_ENDPOINT: endpoint, AWS_ACCESS_KEY_ID: 'k', AWS_SECRET_ACCESS_KEY: 's' });
  if (config.kind !== 's3') throw new Error('expected s3');
  const store = await S3FileStore.open(config, tempDir(t));
  t.teardown(() => store.close());
  const controller = new AbortController();
  const removal = store.remove('ab'.repeat(32), { signal: controller.signal });
  await reached;
  controller.abort(new DOMException('The operation timed out.', 'TimeoutError'));
  await t.rejects(removal, 'the removal fails once its signal fires, though the bucket never answered');
  t.same(requests, ['DELETE'], 'one DeleteObject, not retried after the signal');
});

t.test('FIELDOPS_FILE_STORE parsing', async (t) => {
  t.same(parseFileStore(undefined, '/data'), { kind: 'file', dir: '/data/files' });
  t.same(parseFileStore('file:/srv/files', '/data'), { kind: 'file', dir: '/srv/files' });
  t.match(parseFileStore('s3://my-bucket/a/b/', '/data', { FIELDOPS_S3_ENDPOINT: 'http://minio:9000', AWS_ACCESS_KEY_ID: 'k', AWS_SECRET_ACCESS_KEY: 's', FIELDOPS_S3_PRESIGN: 'true' }), { kind: 's3', bucket: 'my-bucket', prefix: 'a/b/', endpoint: 'http://minio:9000', presign: true, credentials: { accessKeyId: 'k' } });
  t.match(parseFileStore('s3://my-bucket', '/data'), { kind: 's3', prefix: '', endpoint: null, credentials: null, presign: false, region: 'us-east-1' });
  t.throws(() => parseFileStore('ftp://x', '/data'), /FIELDOPS_FILE_STORE must be/);
  t.throws(() => parseFileStore('s3://B', '/data'), /FIELDOPS_FILE_STORE must be/);
  t.throws(() => parseFileStore('s3://bucket', '/data', { AWS_ACCESS_KEY_ID: 'k' }), /go together/);
  t.throws(() => parseFileStore('s3://bucket', '/data', { FIELDOPS_S3_ENDPOINT: 'minio:9000' }), /FIELDOPS_S3_ENDPOINT/);
});
