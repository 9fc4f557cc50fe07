import { createBackgroundContext, type BackgroundContext, type BackgroundOptions } from './context';
import { benchRegistrars, coreRegistrars } from './registrars';

export type { BackgroundOptions } from './context';

/** The running background: its context, and the function that removes every handler and listener. */
export type Background = BackgroundContext & { dispose(): void };

/**
 * Starts the background: builds the core services, then each core feature's registrar in order
 * (`registrars/index.ts`; benchmark builds add theirs), then start-up. Listeners are registered
 * synchronously, before anything is awaited, because a stopped MV3 worker is woken by the very
 * event it must handle; handlers wait for start-up themselves.
 */
export function startBackground(options: BackgroundOptions): Background {
  // Marks on the worker's own clock for the benches (bench/send.mjs reads them after a cold start):
  // how long the script's evaluation took before this ran, and when start-up was done.
  performance.mark('sidequest:main');
  const ctx = createBackgroundContext(options);
  const registrars = options.bench ? [...coreRegistrars, ...benchRegistrars] : coreRegistrars;
  const disposers = registrars.map((register) => register(ctx));
  void ctx.start().then(() => performance.mark('sidequest:started'), () => undefined);
  return { ...ctx, dispose: () => disposers.reverse().forEach((dispose) => dispose()) };
}
