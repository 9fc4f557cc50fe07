import type { BackgroundContext } from '../context';

/**
 * One core feature of the background: adds its message handlers and listeners to the context
 * (synchronously: an MV3 worker is woken by the very event it must handle) and returns the
 * function that removes them. Listed once in `./index.ts`.
 */
export type Registrar = (ctx: BackgroundContext) => () => void;

/** One disposer for several: runs them in reverse order. */
export function disposeAll(...disposers: Array<() => void>): () => void {
  return () => {
    for (const dispose of disposers.reverse()) dispose();
  };
}
