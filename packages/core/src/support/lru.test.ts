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

test('keeps what a plain least-recently-used list keeps, through random gets, sets and deletes', () => {
  // The reference: keys in order of use, oldest first.
  let seed = 7;
  const next = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
  for (const capacity of [1, 2, 5, 64]) {
    const lru = new LruCache<number, number>(capacity);
    const order: number[] = [];
    const values = new Map<number, number>();
    for (let step = 0; step < 5000; step++) {
      const key = next(capacity * 3);
      const op = next(10);
      if (op < 5) {
        const expected = values.get(key);
        expect(lru.get(key)).toBe(expected);
        if (expected !== undefined) order.push(...order.splice(order.indexOf(key), 1));
      } else if (op < 9) {
        lru.set(key, step);
        if (values.has(key)) order.splice(order.indexOf(key), 1);
        order.push(key);
        values.set(key, step);
        while (order.length > capacity) values.delete(order.shift() as number);
      } else {
        lru.delete(key);
        if (values.has(key)) order.splice(order.indexOf(key), 1);
        values.delete(key);
      }
      expect(lru.size).toBe(order.length);
    }
    for (const key of [...order]) expect(lru.get(key)).toBe(values.get(key));
  }
});
