import type { BackgroundContext } from '../context';
import { disposeAll } from './registrar';

/**
 * The approval gate's side of the pages: its asks and remembered choices as live events and the
 * toolbar badge, the answers, and a conversation's "act without asking" switch.
 */
export function registerApprovals(ctx: BackgroundContext): () => void {
  const { gate, hub, badge, store, handle } = ctx;
  ctx.onStartup(() => gate.load().catch((error) => console.error('[sidequest] could not read the remembered permissions', error)));
  const stopListening = gate.onChange((change) => {
    if (change.type === 'asked') hub.broadcast({ type: 'approval', approval: change.approval });
    else if (change.type === 'closed') hub.broadcast({ type: 'approval-closed', id: change.id, conversationId: change.conversationId });
    else hub.broadcast({ type: 'permissions', permissions: change.permissions });
    if (change.type !== 'permissions') badge.set('core:approvals', gate.list().length);
  });
  return disposeAll(
    stopListening,
    handle('listApprovals', () => gate.list()),
    handle('answerApproval', ({ id, answer }) => gate.answer(id, answer)),
    handle('listPermissions', async () => {
      await gate.load();
      return gate.permissions();
    }),
    handle('revokePermission', ({ tool, site }) => gate.revoke(tool, site)),
    handle('setActWithoutAsking', async ({ conversationId, on }) => {
      const before = await store.getOrThrow(conversationId);
      // Not a change of its content: the conversation keeps its place in the list.
      const conversation = await store.update(conversationId, { actWithoutAsking: on, updatedAt: before.updatedAt });
      gate.setTrusted(conversationId, on);
      hub.broadcast({ type: 'conversation', conversation });
      return conversation;
    }),
  );
}
