import { randomFillSync } from 'node:crypto';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Path ids are checked before they reach the database: a malformed one is simply not found. */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
/** Random bytes drawn in blocks: one call into the system's generator per 512 ids, not one per id. */
const random = Buffer.alloc(10 * 512);
let randomOffset = random.length;
let lastMillis = -Infinity;
let sequence = 0;

/**
 * A UUID version 7 (RFC 9562): 48 bits of Unix milliseconds, a 12-bit sequence counting the ids
 * of one millisecond from a random start (past 4095 the millisecond borrows the next), and 62
 * random bits. Ids of one process sort in creation order, even if the clock steps back.
 *
 * Why: rows keyed by these go to the end of their primary-key index instead of a random page;
 * for observations, SQLite's insert of a 100-row batch takes 2.0 ms instead of 5.2 ms (measured,
 * 110,000 rows in the table). They reveal the millisecond of creation, which observations show
 * anyway (`created_at`).
 */
export function timeOrderedUuid(now = Date.now()): string {
  if (randomOffset === random.length) {
    randomFillSync(random);
    randomOffset = 0;
  }
  const r = randomOffset;
  randomOffset += 10;
  if (now > lastMillis) {
    lastMillis = now;
    sequence = random[r]! & 0x7f; // a random start in the lower half leaves room to count
  } else if (++sequence > 0xfff) {
    lastMillis++;
    sequence = 0;
  }
  const ms = lastMillis;
  const high = Math.floor(ms / 0x1000000); // the top 24 bits of 48
  const low = ms % 0x1000000;
  return (
    HEX[(high >>> 16) & 0xff]! + HEX[(high >>> 8) & 0xff]! + HEX[high & 0xff]! + HEX[(low >>> 16) & 0xff]! + '-' +
    HEX[(low >>> 8) & 0xff]! + HEX[low & 0xff]! + '-' +
    HEX[0x70 | (sequence >>> 8)]! + HEX[sequence & 0xff]! + '-' +
    HEX[0x80 | (random[r + 1]! & 0x3f)]! + HEX[random[r + 2]!]! + '-' +
    HEX[random[r + 3]!]! + HEX[random[r + 4]!]! + HEX[random[r + 5]!]! + HEX[random[r + 6]!]! + HEX[random[r + 7]!]! + HEX[random[r + 8]!]!
  );
}
