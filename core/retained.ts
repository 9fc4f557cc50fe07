/**
 * What the background keeps in memory, counted: each module that keeps a growing set (a cache, a
 * map by conversation or tab, listeners, waiting asks) registers a named size function here, and
 * the extension's pages may read the counts (numbers only, never contents: `getRetainedCounts`).
 * The memory e2e test reads them after run 50 and run 100 of a long day and asserts they stay put.
 * The core names none of the plugins' sets: a plugin registers its own through
 * `PluginContext.retained` (named `<plugin>/<name>`), so deleting its folder takes them with it.
 */
export class RetainedSets {
  private readonly sizes = new Map<string, { size: () => number; max?: number }>();

  /**
   * Adds a named count; `max` is the bound of a cache that keeps at most that many (an LRU), so a
   * reader knows it may grow up to there. Returns the function that removes it. A taken name throws.
   */
  register(name: string, size: () => number, max?: number): () => void {
    if (this.sizes.has(name)) throw new Error(`Two retained sets named "${name}".`);
    this.sizes.set(name, max === undefined ? { size } : { size, max });
    return () => void this.sizes.delete(name);
  }

  /** Every count by name, sorted (a size function that throws counts as -1), and the bounds of the bounded ones. */
  counts(): RetainedCounts {
    const counts: Record<string, number> = {};
    const limits: Record<string, number> = {};
    for (const name of [...this.sizes.keys()].sort()) {
      const { size, max } = this.sizes.get(name)!;
      try {
        const n = size();
        counts[name] = Number.isFinite(n) ? n : -1;
      } catch {
        counts[name] = -1;
      }
      if (max !== undefined) limits[name] = max;
    }
    return { counts, limits };
  }
}

/** What `getRetainedCounts` answers: numbers only. */
export interface RetainedCounts {
  /** How many entries each set holds now. */
  counts: Record<string, number>;
  /** The most a bounded set keeps (the others must not grow at all over many runs). */
  limits: Record<string, number>;
}

/**
 * Sets `key` in a map used as a least-recently-used cache of at most `max` entries: the key moves
 * to the newest place, and the oldest entries go past `max`.
 */
export function setBounded<K, V>(map: Map<K, V>, key: K, value: V, max: number): void {
  map.delete(key);
  map.set(key, value);
  while (map.size > max) map.delete(map.keys().next().value as K);
}

/** Adds `value` to a set of at most `max` entries, the oldest going first. */
export function addBounded<T>(set: Set<T>, value: T, max: number): void {
  set.delete(value);
  set.add(value);
  while (set.size > max) set.delete(set.values().next().value as T);
}
