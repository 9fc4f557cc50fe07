import type { BackgroundContext } from '../context';
import { disposeAll } from './registrar';

/** Conversations: the list, one with its messages, create, rename, delete, search. */
export function registerConversations(ctx: BackgroundContext): () => void {
  const { store, runner, providers, hub, handle } = ctx;
  // The search index goes on with its build or catches up with what a stopped background left
  // unindexed; nothing waits for it (search scans until a build is done).
  ctx.onStartup(() => {
    setTimeout(() => void store.index.resume().catch((error) => console.warn('The search index could not catch up:', error)), 0);
  });
  return disposeAll(
    handle('listConversations', () => store.list()),
    handle('listConversationPage', ({ after, limit }) => store.listPage({ after, limit: Math.min(Math.max(1, limit), 1000) })),
    handle('getConversation', async ({ id }) => {
      const conversation = await store.get(id);
      if (!conversation) return null;
      const messages = await store.messages(id);
      // The answer being streamed is fresher in memory than on disk.
      const live = runner.liveMessage(id);
      if (live) {
        const at = messages.findIndex((m) => m.id === live.id);
        if (at >= 0) messages[at] = live;
        else messages.push(live);
      }
      return { conversation, messages };
    }),
    handle('createConversation', async () => {
      let conversation = await store.create();
      // The approval mode may start new conversations with "act without asking" on.
      if (await ctx.startsTrusted()) conversation = await store.update(conversation.id, { actWithoutAsking: true });
      await providers.adoptNew(conversation.id);
      hub.broadcast({ type: 'conversation', conversation });
      return conversation;
    }),
    handle('renameConversation', async ({ id, title }) => {
      const conversation = await store.rename(id, title);
      hub.broadcast({ type: 'conversation', conversation });
      return conversation;
    }),
    handle('deleteConversation', async ({ id }) => {
      await ctx.forgetConversation(id);
      await store.delete(id);
      await providers.forget(id);
      hub.broadcast({ type: 'conversation-deleted', id });
    }),
    handle('searchConversations', ({ query }) => store.searchConversations(query)),
  );
}
