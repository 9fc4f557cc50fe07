import type { BackgroundContext } from '../context';
import { disposeAll } from './registrar';

/** Model providers: profiles, their check and model lists, the model of a conversation (`core/background/providers.ts`). */
export function registerProviders(ctx: BackgroundContext): () => void {
  const { providers, handle } = ctx;
  return disposeAll(
    handle('checkProvider', () => providers.check()),
    handle('getProvider', () => providers.view()),
    handle('saveProvider', (data) => providers.save(data)),
    handle('deleteProviderProfile', ({ id }) => providers.remove(id)),
    handle('listModels', (data) => providers.models(data)),
    handle('getConversationModel', ({ conversationId }) => providers.getChoice(conversationId)),
    handle('setConversationModel', ({ conversationId, choice }) => providers.setChoice(conversationId, choice)),
  );
}
