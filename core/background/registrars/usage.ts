import type { BackgroundContext } from '../context';

/** What a run's steps cost and sent: the kept request and response of a step (the chat's Usage · Trace). */
export function registerUsage(ctx: BackgroundContext): () => void {
  return ctx.handle('getTrace', async ({ messageId }) => (await ctx.db.traces.get(messageId)) ?? null);
}
