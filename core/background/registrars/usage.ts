import type { BackgroundContext } from '../context';
import { disposeAll } from './registrar';

/**
 * What a run's steps cost and sent: the kept request and response of a step (the chat's Usage ·
 * Trace); and what the background keeps in memory, counted (`core/retained.ts`).
 */
export function registerUsage(ctx: BackgroundContext): () => void {
  return disposeAll(
    ctx.handle('getTrace', async ({ messageId }) => (await ctx.db.traces.get(messageId)) ?? null),
    ctx.handle('getRetainedCounts', () => ctx.retained.counts()),
  );
}
