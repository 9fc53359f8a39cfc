import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { DeleteObjectCommand, GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import t, { type Test } from 'tap';
import { dialect } from '../helpers/database.js';
import { runCli } from '../helpers/cli.js';
import { spawnCli } from '../helpers/cli-process.js';
import { serveProcess } from '../helpers/serve-process.js';
import { S3_CREDENTIALS, databaseAndBucket } from './s3-server.js';
import { main } from '../../cli/main.js';

/** A stream that collects what is written, and says it is (or is not) a terminal. */
function sink(isTTY: boolean): NodeJS.WritableStream & { text(): string } {
  let text = '';
  const stream = new Writable({ write: (chunk, _encoding, callback) => ((text += chunk), callback()) });
  return Object.assign(stream, { isTTY, text: () => text });
}

const P = '/api/v1.0/activity/patrols';
const PASSWORD = 'Migrate-Files-Pass-1';
const PREFIX = 'site-a';
const sha = (data: Uint8Array) => createHash('sha256').update(data).digest('hex');
const keyOf = (hash: string) => `${PREFIX}/sha256/${hash.slice(0, 2)}/${hash.slice(2, 4)}/${hash}`;

/** No stack traces for user mistakes: `error:` and `hint:` lines only. */
function userMistake(t: Test, result: { code: number | null; stderr: string }, message: RegExp, code = 1): void {
  t.equal(result.code, code, result.stderr);
  t.match(result.stderr, message);
  // The first line names the database (and, the first time, that --create set it up).
  t.match(result.stderr, /^using database: .*\n(created the database: .*\n)?error: .*\nhint: .+\n$/);
  t.notMatch(result.stderr, /\n\s+at /, 'no stack');
}

/**
 * `fieldops admin migrate-files` on the real binary, against a real S3 server (s3rver): a disk
 * store filled through a real server (patrol files, event files, one past the multipart
 * threshold) is copied, resumed after a SIGKILL, re-run (nothing copied), repaired where an
 * object was corrupted, and then served byte for byte by a server on FIELDOPS_FILE_STORE=s3://.
 */
t.test(`admin migrate-files copies a disk store into a bucket (${dialect})`, async (t) => {
  const setup = await databaseAndBucket(t);
  if (!setup) return;
  const { db, s3 } = setup;
  const client = new S3Client({ endpoint: s3.endpoint, region: 'us-east-1', forcePathStyle: true, credentials: S3_CREDENTIALS });
  t.teardown(() => client.destroy());
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'fieldops-migrate-'));
  t.teardown(() => fs.rmSync(scratch, { recursive: true, force: true }));
  const dataDir = path.join(scratch, 'data');
  const base = { DATABASE_URL: db.location, FIELDOPS_ADMIN_PASSWORD: PASSWORD, FIELDOPS_PATROL_SWEEP_SECONDS: '0' };
  const env = { ...base, ...s3.env, FIELDOPS_DATA_DIR: dataDir };
  const to = `s3://${s3.bucket}/${PREFIX}`;
  const migrate = (...args: string[]) => runCli(['admin', 'migrate-files', '--to', to, ...args], { env, timeoutMs: 60000 });
  const bucketKeys = async () => ((await client.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: `${PREFIX}/` }))).Contents ?? []).map((item) => item.Key!).sort();
  const objectSha = async (key: string) => sha(await (await client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: key }))).Body!.transformToByteArray());

  await t.test('user mistakes: error and hint, exit 1', async (t) => {
    // The first run sets the new database up; the others run side by side (each is a process start).
    userMistake(t, await migrate('--create'), /error: the source folder .*files does not exist\nhint: .*FIELDOPS_DATA_DIR/);
    const [nowhere] = await Promise.all([migrate('--from', `file:${scratch}/nowhere`), fs.promises.mkdir(path.join(dataDir, 'files'), { recursive: true })]);
    userMistake(t, nowhere, /error: the source folder .*nowhere does not exist\nhint: check the path given to --from/);
    // A bucket in another region answers 301 to every request (the endpoint says no more).
    const otherRegion = http.createServer((_request, response) => response.writeHead(301, { 'x-amz-bucket-region': 'eu-west-3' }).end());
    await new Promise<void>((resolve) => otherRegion.listen(0, '127.0.0.1', resolve));
    t.teardown(() => otherRegion.close());
    const otherRegionEndpoint = `http://127.0.0.1:${(otherRegion.address() as { port: number }).port}`;
    const [noBucket, badKey, closed, toFile, fromBucket, concurrency, moved] = await Promise.all([
      runCli(['admin', 'migrate-files', '--to', `s3://no-such-bucket/x`], { env }),
      // NOTE: s3rver checks the access key id but not SigV4 signatures, so the wrong key is the id.
      runCli(['admin', 'migrate-files', '--to', to], { env: { ...env, AWS_ACCESS_KEY_ID: 'NOT-A-KEY' } }),
      runCli(['admin', 'migrate-files', '--to', to], { env: { ...env, FIELDOPS_S3_ENDPOINT: 'http://127.0.0.1:1' } }),
      runCli(['admin', 'migrate-files', '--to', 'file:/tmp/x'], { env }),
      migrate('--from', to),
      migrate('--concurrency', '0'),
      runCli(['admin', 'migrate-files', '--to', to], { env: { ...env, FIELDOPS_S3_ENDPOINT: otherRegionEndpoint } }),
    ]);
    userMistake(t, moved, /error: .* answered HTTP 301 .*\nhint: check FIELDOPS_S3_REGION/);
    userMistake(t, noBucket, /error: The bucket "no-such-bucket" does not exist.*\nhint: create the bucket/);
    userMistake(t, badKey, /error: .*refused the credentials.*\nhint: check AWS_ACCESS_KEY_ID/);
    userMistake(t, closed, /error: Cannot reach http:\/\/127\.0\.0\.1:1: ECONNREFUSED.*\nhint: check FIELDOPS_S3_ENDPOINT/);
    userMistake(t, toFile, /--to must name a bucket/, 2);
    userMistake(t, fromBucket, /not a disk store/, 2);
    userMistake(t, concurrency, /--concurrency must be/, 2);
    t.same(await bucketKeys(), [], 'nothing written');
  });

  // A disk store filled through a real server: patrol files (one past the 8 MiB multipart
  // threshold: lib-storage's smallest part is 5 MiB, so a lower threshold would save little) and event files.
  const server = serveProcess({ ...base, FIELDOPS_DATA_DIR: dataDir });
  const url = await server.url;
  const login = await fetch(`${url}/oauth2/token/`, { method: 'POST', body: new URLSearchParams({ grant_type: 'password', client_id: 'fieldops-cli', username: 'admin', password: PASSWORD }) });
  const auth = { Authorization: `Bearer ${((await login.json()) as { access_token: string }).access_token}` };
  const json = { ...auth, 'Content-Type': 'application/json' };
  const patrol = (await (await fetch(url + P, { method: 'POST', headers: json, body: JSON.stringify({ title: 'before the move' }) })).json()) as { id: string };
  t.equal((await fetch(`${url}/api/v2.0/activity/eventtypes`, { method: 'POST', headers: json, body: JSON.stringify({ value: 'sighting', display: 'Sighting' }) })).status, 201);
  const event = (await (await fetch(`${url}/api/v1.0/activity/events`, { method: 'POST', headers: json, body: JSON.stringify({ event_type: 'sighting', event_details: {} }) })).json()) as { id: string };
  const files: Array<{ data: Buffer; content: string }> = [];
  const sizes = [9 * 1024 * 1024 + 123, 1, 1000, 70_000, 300_000, 5, 2048];
  for (const [index, size] of sizes.entries()) {
    const data = randomBytes(size);
    const form = new FormData();
    form.append('filecontent.file', new Blob([data]), `file-${index}.bin`);
    const onEvent = index % 3 === 2;
    const uploaded = await fetch(onEvent ? `${url}/api/v1.0/activity/event/${event.id}/files/` : `${url}${P}/${patrol.id}/files`, { method: 'POST', headers: auth, body: form });
    t.equal(uploaded.status, 201);
    const { id } = (await uploaded.json()) as { id: string };
    files.push({ data, content: onEvent ? `/api/v1.0/activity/event/${event.id}/file/${id}/content` : `${P}/${patrol.id}/files/${id}/content` });
  }
  server.child.kill('SIGTERM');
  await server.exited;
  const keys = files.map((file) => keyOf(sha(file.data))).sort();

  await t.test('--dry-run compares and copies nothing', async (t) => {
    const dry = await migrate('--dry-run', '--json');
    t.equal(dry.code, 0, dry.stderr);
    t.match(JSON.parse(dry.stdout), { dryRun: true, files: files.length, copied: files.length, skipped: 0, failed: 0, missing: [] });
    t.same(await bucketKeys(), []);
  });

  await t.test('a run killed with SIGKILL partway, then resumed, completes with nothing lost', async (t) => {
    const child = spawnCli(['admin', 'migrate-files', '--to', to, '--concurrency', '1'], env);
    const killOnFirstObject = () => child.child.kill('SIGKILL');
    s3.server.on('event', killOnFirstObject);
    const ended = await child.exited;
    s3.server.off('event', killOnFirstObject);
    t.equal(ended.signal, 'SIGKILL', child.stderr());
    const partial = await bucketKeys();
    t.ok(partial.length >= 1 && partial.length < files.length, `partway: ${partial.length} of ${files.length} objects`);

    const resumed = await migrate('--json');
    t.equal(resumed.code, 0, resumed.stderr);
    const summary = JSON.parse(resumed.stdout);
    t.match(summary, { dryRun: false, files: files.length, failed: 0, missing: [], switch: `FIELDOPS_FILE_STORE=${to}` });
    t.equal(summary.copied + summary.skipped, files.length);
    t.ok(summary.skipped >= 1, 'what the killed run copied is kept');
    t.equal(resumed.stderr, `using database: ${db.location}\n`, 'no progress without a terminal (only the database used)');
    t.same(await bucketKeys(), keys, 'every file is in the bucket');
    for (const file of files) t.equal(await objectSha(keyOf(sha(file.data))), sha(file.data), 'byte for byte');
  });

  await t.test('a second run copies nothing, and says how to switch', async (t) => {
    const again = await migrate();
    t.equal(again.code, 0, again.stderr);
    t.match(again.stdout, new RegExp(`${files.length} files: copied 0 \\(0 B\\), ${files.length} already in the bucket \\(verified\\), 0 failed`));
    t.match(again.stdout, new RegExp(`To switch the server to the bucket, set\\n  FIELDOPS_FILE_STORE=${to}\\n  FIELDOPS_S3_ENDPOINT=${s3.endpoint}`));
  });

  await t.test('progress on a terminal only, on stderr', async (t) => {
    const stdout = sink(false);
    const stderr = sink(true);
    const code = await main(['node', 'fieldops', 'admin', 'migrate-files', '--to', to, '--dry-run'], { stdout, stderr, env });
    t.equal(code, 0, stderr.text());
    t.match(stderr.text(), new RegExp(`comparing ${files.length}/${files.length} files, 9\\.\\d MiB of 9\\.\\d MiB`));
    t.match(stderr.text(), /\r\x1b\[2K$/, 'the status line is cleared at the end');
    t.match(stdout.text(), /would copy 0 .*\ndry run: nothing was copied/);
    t.notMatch(stdout.text(), /\r|\x1b/, 'no progress on stdout');
  });

  await t.test('corrupted objects (other bytes under the key, even with the right size and metadata) are detected and re-copied', async (t) => {
    const small = files[3]!.data;
    const forged = randomBytes(small.length);
    await client.send(new PutObjectCommand({ Bucket: s3.bucket, Key: keyOf(sha(small)), Body: forged, Metadata: { sha256: sha(small) } }));
    const big = files[0]!.data;
    await client.send(new PutObjectCommand({ Bucket: s3.bucket, Key: keyOf(sha(big)), Body: big.subarray(0, 1000) }));
    await client.send(new DeleteObjectCommand({ Bucket: s3.bucket, Key: keyOf(sha(files[1]!.data)) }));
    const repaired = await migrate('--json');
    t.equal(repaired.code, 0, repaired.stderr);
    t.match(JSON.parse(repaired.stdout), { copied: 3, skipped: files.length - 3, failed: 0, bytes: small.length + big.length + 1 });
    for (const file of files) t.equal(await objectSha(keyOf(sha(file.data))), sha(file.data), 'byte for byte again');
  });

  await t.test('a server on FIELDOPS_FILE_STORE=s3:// serves every copied file byte for byte', async (t) => {
    const emptyDataDir = path.join(scratch, 'second-machine');
    const s3Server = serveProcess({ ...base, ...s3.env, FIELDOPS_DATA_DIR: emptyDataDir, FIELDOPS_FILE_STORE: to });
    const s3Url = await s3Server.url;
    t.teardown(async () => {
      s3Server.child.kill('SIGTERM');
      await s3Server.exited;
    });
    for (const file of files) {
      const response = await fetch(s3Url + file.content, { headers: auth });
      t.equal(response.status, 200);
      t.equal(sha(new Uint8Array(await response.arrayBuffer())), sha(file.data), `${file.data.length} bytes, byte for byte`);
    }
  });

  await t.test('files the database refers to but the source lacks are reported; a damaged source file fails', async (t) => {
    const copy = path.join(scratch, 'copy');
    fs.cpSync(path.join(dataDir, 'files'), copy, { recursive: true });
    const lost = files[4]!.data;
    fs.rmSync(path.join(copy, 'sha256', sha(lost).slice(0, 2), sha(lost).slice(2, 4), sha(lost)));
    const damaged = files[2]!.data;
    fs.writeFileSync(path.join(copy, 'sha256', sha(damaged).slice(0, 2), sha(damaged).slice(2, 4), sha(damaged)), randomBytes(damaged.length));
    const json = await migrate('--from', `file:${copy}`, '--json', '--dry-run');
    t.equal(json.code, 1, 'a failure is exit 1');
    const summary = JSON.parse(json.stdout);
    t.match(summary, { files: files.length - 1, failed: 1, missing: [{ sha256: sha(lost), size: lost.length, problem: 'absent' }] });
    t.match(summary.failures, [{ path: `sha256/${sha(damaged).slice(0, 2)}/${sha(damaged).slice(2, 4)}/${sha(damaged)}`, error: /the source file is damaged/ }]);
    const text = await migrate('--from', `file:${copy}`);
    t.equal(text.code, 1);
    t.match(text.stdout, /warning: 1 file\(s\) the database refers to are not in the source store/);
    t.match(text.stdout, /failed: sha256\/.*: the source file is damaged/);
    t.match(text.stdout, /not done: run the same command again/);
    t.equal(await objectSha(keyOf(sha(damaged))), sha(damaged), 'the good copy in the bucket is left alone');
  });
});
