/**
 * The driver applies every event through the store (load, step, compare-and-swap save), one at a
 * time, so each git process of a load is on the critical path of the whole mission. The driver
 * is nearly always the only writer: this store answers a load with the version it saved last.
 * That is safe because the save stays a compare-and-swap: when another process wrote meanwhile
 * (`naruto cancel`), the save fails, the cache is dropped, and `applyEvent` reloads and applies
 * the event again to the newer mission. `refresh` drops the cache so that the next load reads
 * git: the driver does it on every clock tick, which is how it notices a change from elsewhere
 * even when it has nothing to save.
 */
import type { MissionStore, StoredMission } from "../mission/index.ts";

export interface CachedStore extends MissionStore {
  /** The next load of `id` reads the stored mission again. */
  refresh(id: string): void;
}

export function cachedStore(store: MissionStore): CachedStore {
  const cache = new Map<string, StoredMission>();
  return {
    async load(id) {
      const hit = cache.get(id);
      if (hit) return hit;
      const stored = await store.load(id);
      if (stored) cache.set(id, stored);
      return stored;
    },
    async save(mission, expected) {
      const result = await store.save(mission, expected);
      if (result.ok) cache.set(mission.id, { mission, version: result.version });
      else cache.delete(mission.id);
      return result;
    },
    list: () => store.list(),
    async discard(id) {
      cache.delete(id);
      await store.discard(id);
    },
    refresh(id) {
      cache.delete(id);
    },
  };
}
