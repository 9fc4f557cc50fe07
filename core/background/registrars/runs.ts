import type { BackgroundContext } from '../context';
import { disposeAll } from './registrar';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Agent runs: send a message (starts a run; with a new conversation: starts it), stop, resume; runs a restart interrupted are marked so. */
export function registerRuns(ctx: BackgroundContext): () => void {
  const { store, runner, hub, handle, providers } = ctx;
  // Begun at once, beside the rest of start-up (which waits for it before any handler runs): it
  // reads before the search index's catch-up holds the conversations, and a run started meanwhile
  // (a due skill) is asked about inside each conversation's transaction.
  const recovery = store.recoverInterrupted((id) => runner.isRunning(id)).then((recovered) => {
    for (const conversation of recovered) hub.broadcast({ type: 'conversation', conversation });
  });
  recovery.catch(() => undefined);
  ctx.onStartup(() => recovery);
  return disposeAll(
    handle('sendMessage', async ({ conversationId, text }) => {
      await runner.send(conversationId, text);
    }),
    // The sidebar's Send with no conversation open: created, saved and started in one round trip.
    handle('startConversation', ({ id, text }) => {
      if (typeof id !== 'string' || !UUID.test(id)) throw new Error('A new conversation needs a new id (a UUID).');
      return runner.startConversation(id, text, () => providers.adoptNew(id), ctx.startsTrusted());
    }),
    handle('stopRun', ({ conversationId }) => {
      runner.stop(conversationId);
    }),
    handle('resumeRun', ({ conversationId }) => runner.resume(conversationId)),
  );
}
