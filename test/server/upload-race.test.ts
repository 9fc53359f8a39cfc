/**
 * The race of a cut PATCH with the next writer (issue 26 §6): a PATCH cut mid-body, then at once
 * a HEAD and a PATCH from the offset it answers, 30 times over, on disk and on S3. The HEAD must
 * wait until the cut request's bytes are written (the lock is held until then), so the resumed
 * PATCH never runs beside it; every round ends with the stored file's sha256 equal to the
 * original (a second writer would have made a 460 or a wrong file).
 */
import t, { type Test } from 'tap';
import { type TestServer, dialect, startTestServer } from '../helpers/server.js';
import { UPLOADS, bytesOf, cutPatch, metadata, motoUnavailable, sha256, startMoto, tusHeaders } from './tus-support.js';

const MiB = 1024 * 1024;
const ROUNDS = 20;
/** The S3 rounds are slower (about 10 s each against moto_server): fewer of them. */
const S3_ROUNDS = 5;

async function rounds(t: Test, env: Record<string, string>, size: number, cutAt: number, count = ROUNDS) {
  const s: TestServer | null = await startTestServer(t, { env: { FIELDOPS_MAX_FILE_BYTES: String(64 * MiB), ...env } });
  if (!s) return;
  const token = (await s.login()).access_token;
  const head = (location: string) => s.request(location, { method: 'HEAD', headers: tusHeaders(token) });
  const patch = (location: string, offset: number, body: Buffer) =>
    s.request(location, { method: 'PATCH', headers: tusHeaders(token, { 'Content-Type': 'application/offset+octet-stream', 'Upload-Offset': String(offset) }), body });
  let failed = 0;
  for (let round = 0; round < count; round++) {
    const file = bytesOf(size, 100 + round);
    const created = await s.request(UPLOADS, {
      method: 'POST',
      headers: tusHeaders(token, { 'Upload-Length': String(file.length), 'Upload-Metadata': metadata({ filename: 'photo.jpg', sha256: sha256(file) }) }),
    });
    const location = created.headers.get('location')!;
    await cutPatch(s.url + location, token, 0, file.subarray(0, cutAt), file.length);
    // At once, as the client does after a cut: where does it stand, and the rest from there.
    let offset = Number((await head(location)).headers.get('upload-offset'));
    let rest = await patch(location, offset, file.subarray(offset));
    const offsets = [offset];
    for (let attempt = 0; rest.status === 409 && attempt < 5; attempt++) {
      offset = Number((await head(location)).headers.get('upload-offset'));
      offsets.push(offset);
      rest = await patch(location, offset, file.subarray(offset));
    }
    const ok = rest.status === 204 && rest.headers.get('fieldops-file-sha256') === sha256(file);
    if (!ok) failed++;
    t.ok(ok, `round ${round}: ${rest.status} ${rest.status === 204 ? '' : await rest.text()} (offsets ${offsets.join(' ')}); sha256 ${rest.headers.get('fieldops-file-sha256')}`);
    t.ok(offsets[0]! <= cutAt, `round ${round}: the HEAD's offset is within what was sent (${offsets[0]})`);
  }
  t.equal(failed, 0, `every one of ${count} rounds stored the original bytes`);
}

t.test(`cut PATCH, then HEAD and PATCH at once, ${ROUNDS} rounds on disk (${dialect})`, { timeout: 300_000 }, (t) => rounds(t, {}, 3 * MiB, 2 * MiB + 12_345));

t.test(`cut PATCH, then HEAD and PATCH at once, ${S3_ROUNDS} rounds on S3 (moto_server) (${dialect})`, { timeout: 600_000 }, async (t) => {
  const reason = motoUnavailable();
  if (reason) {
    t.pass('skipped: ' + reason, { skip: reason });
    return;
  }
  const moto = await startMoto(t);
  // Under one 8 MiB part: the cut request leaves an incomplete part, which the next write takes up.
  await rounds(t, moto.env, 6 * MiB, 5 * MiB + 12_345, S3_ROUNDS);
});
