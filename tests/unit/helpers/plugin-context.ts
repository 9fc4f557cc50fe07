import type { PluginContext } from '@/core/plugin';

/**
 * The parts of `PluginContext.conversations` a test without conversations does not use: claims
 * are ignored, a new conversation cannot be made, and every conversation is empty and idle.
 */
export function noConversationRuns(): Pick<PluginContext['conversations'], 'claim' | 'create' | 'withdrawGrants' | 'send' | 'messages' | 'get' | 'settled'> {
  return {
    withdrawGrants: async () => undefined,
    claim: () => undefined,
    create: async () => {
      throw new Error('No conversations in this test.');
    },
    send: async () => undefined,
    messages: async () => [],
    get: async () => undefined,
    settled: async () => undefined,
  };
}
