import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { addTerm, fnv1a32, recordTerm, shardOf } from '../../protocol/checksum.js';

// The worked example of docs/sync.md §Checksums: a client in another language checks itself against these.
t.test('fnv1a32: the published FNV-1a 32-bit vectors, over UTF-8', async (t) => {
  t.equal(fnv1a32(''), 0x811c9dc5, 'the offset basis');
  t.equal(fnv1a32('a'), 0xe40c292c);
  t.equal(fnv1a32('foobar'), 0xbf9cf968);
  t.equal(fnv1a32('é'), 0x1e9de8c1, 'non-ASCII: over the UTF-8 bytes c3 a9');
  t.equal(fnv1a32('\u{1F418}'), 462247304, 'an astral character: its four UTF-8 bytes');
  for (const text of ['', 'a', 'event\nx\n1', '\u{1F418}']) {
    const h = fnv1a32(text);
    t.ok(Number.isInteger(h) && h >= 0 && h < 2 ** 32, `${JSON.stringify(text)}: an unsigned 32-bit integer`);
  }
});

t.test('recordTerm: fnv1a32(kind \\n id \\n version)', async (t) => {
  const id = '3f1c9a2e-5b7d-4e8f-9a0b-1c2d3e4f5a6b';
  t.equal(recordTerm('event', id, 17), 3363299928);
  t.equal(recordTerm('event', id, 17), fnv1a32(`event\n${id}\n17`));
  t.equal(recordTerm('event', '8d2e4f60-1a3b-4c5d-8e9f-0a1b2c3d4e5f', 42), 3300534261);
  t.equal(recordTerm('patrol', 'c0ffee00-0000-4000-8000-000000000001', 9), 1536196700);
  t.not(recordTerm('event', id, 18), recordTerm('event', id, 17), 'a new version is a new term');
  t.not(recordTerm('patrol', id, 17), recordTerm('event', id, 17), 'the kind is part of the term');
});

t.test('a scope checksum: terms added mod 2^32, incrementally', async (t) => {
  const a = recordTerm('event', '3f1c9a2e-5b7d-4e8f-9a0b-1c2d3e4f5a6b', 17);
  const b = recordTerm('event', '8d2e4f60-1a3b-4c5d-8e9f-0a1b2c3d4e5f', 42);
  const c = recordTerm('patrol', 'c0ffee00-0000-4000-8000-000000000001', 9);
  const sum = [a, b, c].reduce(addTerm, 0);
  t.equal(sum, 3905063593, 'the worked example (docs/sync.md)');
  t.equal([c, a, b].reduce(addTerm, 0), sum, 'order does not matter');
  const updated = addTerm(addTerm(sum, -a), recordTerm('event', '3f1c9a2e-5b7d-4e8f-9a0b-1c2d3e4f5a6b', 51));
  t.equal(updated, 1454942839, 'a change is −old +new');
  t.equal(addTerm(updated, -c), 4213713435, 'a removal is −old');
  t.equal(addTerm(addTerm(sum, -c), c), sum, 'add and remove cancel');
});

t.test('addTerm wraps around in [0, 2^32)', async (t) => {
  t.equal(addTerm(4294967295, 1), 0);
  t.equal(addTerm(4294967290, 10), 4);
  t.equal(addTerm(0, -1), 4294967295, 'a removal below zero wraps up');
  t.equal(addTerm(5, -4294967295), 6);
  t.equal(addTerm(0, 0), 0);
  t.equal(addTerm(4294967295, 4294967295), 4294967294, 'two maximal terms');
  let sum = 0;
  const terms = Array.from({ length: 1000 }, (_, i) => recordTerm('event', `id-${i}`, i));
  for (const term of terms) sum = addTerm(sum, term);
  t.ok(sum >= 0 && sum < 2 ** 32);
  t.equal(sum, Number(terms.reduce((s, x) => s + BigInt(x), 0n) % 4294967296n), 'equals the exact sum mod 2^32');
  for (const term of terms) sum = addTerm(sum, -term);
  t.equal(sum, 0, 'removing every term returns to 0');
});

t.test('shardOf: fnv1a32(id) & 15', async (t) => {
  t.equal(shardOf('3f1c9a2e-5b7d-4e8f-9a0b-1c2d3e4f5a6b'), 4);
  t.equal(shardOf('8d2e4f60-1a3b-4c5d-8e9f-0a1b2c3d4e5f'), 1);
  t.equal(shardOf(''), 0x811c9dc5 & 15);
  const seen = new Set(Array.from({ length: 500 }, (_, i) => shardOf(`id-${i}`)));
  t.same([...seen].sort((x, y) => x - y), Array.from({ length: 16 }, (_, i) => i), 'all 16 shards in use');
});

t.test('docs/sync.md: its test-vector table and worked example are what the code computes', async (t) => {
  const doc = fs.readFileSync(fileURLToPath(new URL('../../../docs/sync.md', import.meta.url)), 'utf8');
  const fnv = [...doc.matchAll(/\| `fnv1a32\("([^"]*)"\)`[^|]*\| `0x([0-9a-f]{8})` = (\d+) \|/g)];
  const terms = [...doc.matchAll(/\| `recordTerm\("(\w+)", "([^"]+)", (\d+)\)` \| (\d+) \|/g)];
  t.ok(fnv.length >= 4 && terms.length >= 3, `the table is found (${fnv.length} + ${terms.length} rows)`);
  for (const [, text, hex, decimal] of fnv) {
    t.equal(fnv1a32(text!), parseInt(hex!, 16), `fnv1a32(${JSON.stringify(text)})`);
    t.equal(parseInt(hex!, 16), Number(decimal), 'hex and decimal agree');
  }
  for (const [, kind, id, version, value] of terms) t.equal(recordTerm(kind!, id!, Number(version)), Number(value), `recordTerm(${kind}, ${id}, ${version})`);
  for (const value of ['3905063593', '1454942839', '4213713435']) t.match(doc, `**${value}**`, `the worked example states ${value}`);
});
