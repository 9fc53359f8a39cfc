import { quietNodeVersionWarning } from '../../server/storage/s3-store.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import type { Test } from 'tap';
import { createTestDatabaseFor } from '../helpers/database.js';

/** Credentials s3rver accepts (it checks the access key id; SigV4 signatures it does not verify). */
export const S3_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

/**
 * A real S3 protocol server (s3rver, from npm) on 127.0.0.1 with one empty bucket, in this
 * process, storing under a temp dir. Not a mock: the SDK talks HTTP and signs every request.
 */
export async function startS3Server(bucket = 'fieldops-test'): Promise<{ endpoint: string; bucket: string; env: Record<string, string>; server: S3rver; close(): Promise<void> }> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'fieldops-s3rver-'));
  const server = new S3rver({ port: 0, address: '127.0.0.1', directory, silent: true });
  const { port } = (await server.run()) as { port: number };
  const endpoint = `http://127.0.0.1:${port}`;
  quietNodeVersionWarning();
  const client = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: S3_CREDENTIALS });
  await client.send(new CreateBucketCommand({ Bucket: bucket }));
  client.destroy();
  return {
    endpoint,
    bucket,
    server,
    env: { FIELDOPS_S3_ENDPOINT: endpoint, FIELDOPS_S3_REGION: 'us-east-1', AWS_ACCESS_KEY_ID: S3_CREDENTIALS.accessKeyId, AWS_SECRET_ACCESS_KEY: S3_CREDENTIALS.secretAccessKey },
    close: async () => {
      await server.close();
      fs.rmSync(directory, { recursive: true, force: true });
    },
  };
}

/**
 * A fresh test database and a running S3 server, both torn down with `t`; null (the test then
 * passes as skipped, saying why) when the dialect's database is unavailable.
 */
export async function databaseAndBucket(t: Test) {
  const db = await createTestDatabaseFor(t);
  if (!db) return null;
  const s3 = await startS3Server();
  t.teardown(() => s3.close());
  return { db, s3 };
}
