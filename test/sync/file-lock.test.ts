import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { withFileLock } from '../../sync/file-lock.js';

const busy = { message: 'the lock is held', hint: 'wait' };
const lockIn = (_t: unknown) => path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'fieldops-lock-')), 'x.lock');

/** The pid of a process that has exited (a real one, so the number was really used). */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

t.test('a lock whose holder died is taken over; the lock file is gone afterwards', async (t) => {
  const lock = lockIn(t);
  fs.writeFileSync(lock, String(deadPid()));
  t.match(await withFileLock(lock, async () => fs.readFileSync(lock, 'utf8'), { waitMs: 2000, busy }), new RegExp(`^${process.pid} [0-9a-f]{16}$`), 'held by us while working (pid and nonce)');
  t.notOk(fs.existsSync(lock), 'released');
});

t.test('an empty lock (holder killed before writing its pid) is waited for briefly, then taken over', async (t) => {
  const lock = lockIn(t);
  fs.writeFileSync(lock, '');
  const old = new Date(Date.now() - 10_000);
  fs.utimesSync(lock, old, old);
  t.equal(await withFileLock(lock, async () => 'ran', { waitMs: 2000, busy }), 'ran');
  fs.writeFileSync(lock, '');
  await t.rejects(withFileLock(lock, async () => 'ran', { waitMs: 200, busy }), { message: 'the lock is held' }, 'a fresh empty lock is a holder starting up');
});

t.test('a live holder is waited for (onWait once), then the waiter fails with the busy message', async (t) => {
  const lock = lockIn(t);
  fs.writeFileSync(lock, String(process.pid));
  let waits = 0;
  await t.rejects(withFileLock(lock, async () => 'ran', { waitMs: 300, busy, onWait: () => waits++ }), { message: 'the lock is held', hint: 'wait' });
  t.equal(waits, 1);
  t.equal(fs.readFileSync(lock, 'utf8'), String(process.pid), "the holder's lock is left alone");
  const old = new Date(Date.now() - 60_000);
  fs.utimesSync(lock, old, old);
  t.equal(await withFileLock(lock, async () => 'ran', { waitMs: 300, staleMs: 30_000, busy }), 'ran', 'past staleMs even a live pid is taken over');
});

t.test('many waiters on one stale lock: never two holders at once', async (t) => {
  // The old takeover (remove the stale file) let two holders in within about 15 rounds.
  const dead = String(deadPid());
  for (let round = 0; round < 25; round++) {
    const lock = lockIn(t);
    fs.writeFileSync(lock, dead);
    let inside = 0;
    let most = 0;
    await Promise.all(Array.from({ length: 8 }, () => withFileLock(lock, async () => {
      inside++;
      most = Math.max(most, inside);
      await new Promise((resolve) => setTimeout(resolve, 5));
      inside--;
    }, { waitMs: 10_000, busy })));
    if (most !== 1) return void t.fail(`round ${round}: ${most} holders at once`);
  }
  t.pass('one holder at a time in 25 rounds of 8 waiters');
});

t.test("a holder whose lock was taken over (it ran past staleMs) leaves the new holder's lock alone", async (t) => {
  const lock = lockIn(t);
  await withFileLock(lock, async () => {
    // Another process judged this lock stale and took it over.
    fs.writeFileSync(lock, '424242 0123456789abcdef');
  }, { waitMs: 2000, busy });
  t.equal(fs.readFileSync(lock, 'utf8'), '424242 0123456789abcdef', "the new holder's lock is still there");
});
