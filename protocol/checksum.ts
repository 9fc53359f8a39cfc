/**
 * The feed's checksums: a record's term is `fnv1a32(kind + '\n' + id + '\n' + version)`; a
 * scope's checksum is the sum of its records' terms mod 2^32 and its count their number. Both
 * are additive, so server and laptop keep them incrementally (a change is −old +new).
 */

/** FNV-1a, 32 bits, over the UTF-8 bytes of `text`. */
export function fnv1a32(text: string): number {
  const bytes = Buffer.from(text, 'utf8');
  let hash = 0x811c9dc5;
  for (const byte of bytes) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

export function recordTerm(kind: string, id: string, version: number): number {
  return fnv1a32(`${kind}\n${id}\n${version}`);
}

const MOD = 4294967296;

/** (a + b) mod 2^32 for terms and sums in [0, 2^32); b may be negative (a removal). */
export function addTerm(sum: number, term: number): number {
  return (((sum + term) % MOD) + MOD) % MOD;
}

/** The shard (0..15) a record's term is kept in on the server. */
export function shardOf(id: string): number {
  return fnv1a32(id) & 15;
}
