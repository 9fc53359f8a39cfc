import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import { CreateBucketCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import type { Test } from 'tap';
import { quietNodeVersionWarning } from '../../server/storage/s3-store.js';

export const UPLOADS = '/api/fieldops/v1/uploads';
const CREDENTIALS = { accessKeyId: 'testing', secretAccessKey: 'testing' };

export const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** `Upload-Metadata` for a file: its name and sha256, base64 each (tus). */
export function metadata(fields: Record<string, string>): string {
  return Object.entries(fields).map(([key, value]) => `${key} ${Buffer.from(value).toString('base64')}`).join(',');
}

export const tusHeaders = (token: string, extra: Record<string, string> = {}) => ({ 'Tus-Resumable': '1.0.0', Authorization: `Bearer ${token}`, ...extra });

/** Random bytes that do not compress; the same for a seed. */
export function bytesOf(size: number, seed = 1): Buffer {
  const out = Buffer.alloc(size);
  let block = createHash('sha256').update(String(seed)).digest();
  for (let i = 0; i < size; i += 32) {
    block.copy(out, i, 0, Math.min(32, size - i));
    block = createHash('sha256').update(block).digest();
  }
  return out;
}

/**
 * Sends a PATCH declaring `declared` bytes, writes only `part` and half-closes the connection
 * (every byte written reaches the server before the FIN): a link cut mid-body.
 */
export function cutPatch(url: string, token: string, offset: number, part: Buffer, declared: number): Promise<void> {
  return new Promise((resolve) => {
    const target = new URL(url);
    const req = http.request({
      host: target.hostname, port: target.port, path: target.pathname, method: 'PATCH', agent: false,
      headers: { ...tusHeaders(token), 'Content-Type': 'application/offset+octet-stream', 'Upload-Offset': String(offset), 'Content-Length': String(declared) },
    });
    req.on('error', () => resolve());
    req.on('response', (response) => {
      response.resume();
      response.on('end', () => resolve());
    });
    req.on('close', () => resolve());
    req.write(part, () => req.socket?.end());
  });
}

export interface Moto {
  endpoint: string;
  bucket: string;
  env: Record<string, string>;
  keys(prefix: string): Promise<string[]>;
}

/** Why the S3 runs cannot happen here, or null. */
export function motoUnavailable(): string | null {
  const probe = spawnSync('moto_server', ['--help'], { stdio: 'ignore', timeout: 20000 });
  return probe.error || probe.status !== 0 ? 'moto_server is not on PATH (pip install "moto[server]"): the S3 runs are skipped' : null;
}

/** A moto_server (a real S3 protocol server, with ListParts) on a free port, with one bucket; stopped with `t`. */
export async function startMoto(t: Test, bucket = 'fieldops-tus'): Promise<Moto> {
  const port = await freePort();
  const child = spawn('moto_server', ['-H', '127.0.0.1', '-p', String(port)], { stdio: 'ignore' });
  t.teardown(() => {
    child.kill('SIGTERM');
  });
  const endpoint = `http://127.0.0.1:${port}`;
  for (let attempt = 0; ; attempt++) {
    const ok = await fetch(`${endpoint}/moto-api/`).then((r) => (r.body?.cancel(), true), () => false);
    if (ok) break;
    if (attempt > 300) throw new Error('moto_server did not start');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  quietNodeVersionWarning();
  const client = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: CREDENTIALS });
  t.teardown(() => client.destroy());
  await client.send(new CreateBucketCommand({ Bucket: bucket }));
  return {
    endpoint,
    bucket,
    env: { FIELDOPS_FILE_STORE: `s3://${bucket}/fo`, FIELDOPS_S3_ENDPOINT: endpoint, FIELDOPS_S3_REGION: 'us-east-1', AWS_ACCESS_KEY_ID: CREDENTIALS.accessKeyId, AWS_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey },
    async keys(prefix) {
      const listed = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix }));
      return (listed.Contents ?? []).map((object) => object.Key!);
    },
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
