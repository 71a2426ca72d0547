import { LruCache } from './lru';

test('forgets the least recently used entry beyond its capacity', () => {
  const lru = new LruCache<string, number>(2);
  lru.set('a', 1);
  lru.set('b', 2);
  expect(lru.get('a')).toBe(1);
  lru.set('c', 3);
  expect([lru.get('a'), lru.get('b'), lru.get('c')]).toEqual([1, undefined, 3]);
  expect(lru.size).toBe(2);
});

test('with a weight limit, forgets old entries until the total weight fits, keeping the newest', () => {
  const lru = new LruCache<string, number[]>(100, { weigh: (v) => v.length, maxWeight: 5 });
  lru.set('a', [1, 1]);
  lru.set('b', [2, 2]);
  expect(lru.totalWeight).toBe(4);
  lru.set('c', [3, 3]);
  expect([lru.get('a'), lru.get('b'), lru.get('c')]).toEqual([undefined, [2, 2], [3, 3]]);
  expect(lru.totalWeight).toBe(4);
  lru.set('b', [2]);
  expect(lru.totalWeight).toBe(3);
  lru.set('big', [9, 9, 9, 9, 9, 9, 9]);
  expect([lru.size, lru.totalWeight, lru.get('big')?.length]).toEqual([1, 7, 7]);
  lru.delete('big');
  expect(lru.totalWeight).toBe(0);
});
