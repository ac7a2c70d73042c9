// An LRU cache built on Map insertion order, with hit/miss statistics and a memoize helper.
class LRUCache {
  constructor(capacity) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError('capacity must be a positive integer');
    this.capacity = capacity;
    this.map = new Map();
    this.hits = 0;
    this.misses = 0;
  }
  get(key) {
    if (!this.map.has(key)) { this.misses++; return undefined; }
    const value = this.map.get(key);
    this.map.delete(key);
    this.map.set(key, value);
    this.hits++;
    return value;
  }
  set(key, value) {
    if (this.map.has(key)) this.map.delete(key);
    else if (this.map.size >= this.capacity) {
      const oldest = this.map.keys().next().value;
      this.map.delete(oldest);
    }
    this.map.set(key, value);
    return this;
  }
  get hitRate() {
    const total = this.hits + this.misses;
    return total === 0 ? 0 : this.hits / total;
  }
  toString() {
    return `LRU(${[...this.map.keys()].join(' > ')})`;
  }
}

const cache = new LRUCache(3);
cache.set('a', 1).set('b', 2).set('c', 3);
cache.get('a');
cache.set('d', 4); // evicts "b", the least recently used
console.log(String(cache), 'b present?', cache.get('b') !== undefined);

function memoize(fn, capacity = 100) {
  const lru = new LRUCache(capacity);
  const wrapped = (...args) => {
    const key = JSON.stringify(args);
    const cached = lru.get(key);
    if (cached !== undefined) return cached;
    const result = fn(...args);
    lru.set(key, result);
    return result;
  };
  wrapped.cache = lru;
  return wrapped;
}

const slowFib = (n) => (n < 2 ? n : fastFib(n - 1) + fastFib(n - 2));
const fastFib = memoize(slowFib, 200);
console.log('fib(90) =', fastFib(90));
console.log(`memo hit rate: ${(fastFib.cache.hitRate * 100).toFixed(1)}%`);

try {
  new LRUCache(0);
} catch (e) {
  console.log('Rejected bad capacity:', e.message);
}
