import t from 'tap';
import { BodyCache } from '../../server/http/body-cache.js';

t.test('BodyCache: hits by ETag, bounded by entries and bytes, least recently used out', async (t) => {
  const cache = new BodyCache(2, 100);
  cache.set('"a"', Buffer.from('aaaa'));
  cache.set('"b"', Buffer.from('bbbb'));
  t.same(cache.get('"a"'), Buffer.from('aaaa'), 'a hit');
  cache.set('"c"', Buffer.from('cccc'));
  t.equal(cache.get('"b"'), undefined, 'the least recently used entry went');
  t.ok(cache.get('"a"') && cache.get('"c"'));
  cache.set('"big"', Buffer.alloc(30));
  t.equal(cache.get('"big"'), undefined, 'a body over a quarter of the budget is not kept');
  const bytes = new BodyCache(10, 40);
  for (const key of ['1', '2', '3']) bytes.set(key, Buffer.alloc(10));
  bytes.set('4', Buffer.alloc(10));
  bytes.set('5', Buffer.alloc(10));
  t.equal(bytes.get('1'), undefined, 'the byte budget holds');
  t.ok(bytes.get('5'));
});
