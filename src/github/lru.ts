/**
 * A map of at most `limit` entries that forgets the least recently used first: the App's
 * in-memory caches (GET answers with their ETags, rendered state versions) are bounded by it.
 */
export interface Lru<V> {
  get(key: string): V | undefined;
  set(key: string, value: V): void;
}

export function createLru<V>(limit: number): Lru<V> {
  const entries = new Map<string, V>();
  return {
    get(key) {
      const found = entries.get(key);
      if (found !== undefined) {
        // Map keeps insertion order: moving the key to the end marks it as the newest.
        entries.delete(key);
        entries.set(key, found);
      }
      return found;
    },
    set(key, value) {
      entries.delete(key);
      entries.set(key, value);
      for (const oldest of entries.keys()) {
        if (entries.size <= limit) break;
        entries.delete(oldest);
      }
    },
  };
}
