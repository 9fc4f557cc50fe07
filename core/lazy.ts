/**
 * A value made the first time it is asked for, then kept. For what a module would otherwise build
 * as it loads (zod schemas above all): Chrome evaluates the whole background at every start of its
 * service worker, and most of these are needed only once a feature is used. `node
 * bench/evaluation.mjs` shows what each module's top-level code costs a cold start.
 */
export function lazy<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => (made ??= { value: make() }).value;
}
