import type { Said } from '@/core/i18n/catalog';
import { withContextWindow, type SummaryMemory } from './context-window';
import { PROMPTED_NOTICE, withPromptedTools } from './prompted-tools';
import type { ModelClient, ProviderConfig } from './provider';
import { createProviderClient, providerOf } from './providers';
import type { ToolImageMode } from './providers/define';
import { toolImagesFor, withToolImages } from './tool-images';

// The model clients the background hands out: a profile's provider client (`providers/`, the
// wire) wrapped in what the agent adds to it: tool images, prompted tool calls, the context window.

/** How tool images reach the profile's model (`tool-images.ts`), asked once, when first needed. */
function imageMode(model: ModelClient): () => Promise<ToolImageMode> {
  let mode: Promise<ToolImageMode> | undefined;
  return () => (mode ??= toolImagesFor(model.config, model));
}

/**
 * The model client for a profile's provider type, with the images of tool results where its
 * model reads them (or a note). Throws `ProviderError` when it cannot be built (no key, unsafe address).
 */
export function createModelClient(config: ProviderConfig): ModelClient {
  const model = createProviderClient(config);
  return withToolImages(model, imageMode(model));
}

/** Where the agent's client says something to the conversation: prompted tool calls began, the context was shortened. */
export type NoticeKind = 'prompted-tools' | 'context';

/**
 * The client an agent run uses: the provider's client, with prompted tool calls when the profile
 * or the provider type says the model has no tool calling or the provider refuses tools, inside
 * a context window keeper (the provider's figure, else the profile's, else the type's).
 * `notice` tells the conversation when either happens; `summaries` keeps the summary of a long
 * conversation with it, for its next runs.
 */
export function createAgentClient(config: ProviderConfig, notice?: (kind: NoticeKind, words: Said, once?: boolean) => void, summaries?: SummaryMemory): ModelClient {
  const { capabilities } = providerOf(config.type);
  const model = createProviderClient(config);
  // Images are shaped before prompted tool calls turn results into text (which keeps them as image parts).
  const tools = withPromptedTools(model, {
    prompted: config.toolMode === 'prompted' || !capabilities.tools,
    onSwitch: () => notice?.('prompted-tools', PROMPTED_NOTICE, true),
  });
  const images = imageMode(model);
  return withContextWindow(withToolImages(tools, images), {
    contextLength: config.contextLength ?? capabilities.contextWindow,
    onCompact: (words, once) => notice?.('context', words, once),
    imagesSent: async () => (await images()) !== 'none',
    summaries,
  });
}
