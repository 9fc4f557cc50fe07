import type { BackgroundContext } from '../context';
import { disposeAll } from './registrar';

/** Agent runs: send a message (starts a run), stop, resume; runs a restart interrupted are marked so. */
export function registerRuns(ctx: BackgroundContext): () => void {
  const { store, runner, hub, handle } = ctx;
  ctx.onStartup(async () => {
    const recovered = await store.recoverInterrupted(runner.runningIds());
    for (const conversation of recovered) hub.broadcast({ type: 'conversation', conversation });
  });
  return disposeAll(
    handle('sendMessage', async ({ conversationId, text }) => {
      await runner.send(conversationId, text);
    }),
    handle('stopRun', ({ conversationId }) => {
      runner.stop(conversationId);
    }),
    handle('resumeRun', ({ conversationId }) => runner.resume(conversationId)),
  );
}
