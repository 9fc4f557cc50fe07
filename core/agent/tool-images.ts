import type { JSONValue, LanguageModelV3Prompt, LanguageModelV3ToolResultOutput } from '@ai-sdk/provider';
import type { ModelClient } from './provider';

/**
 * Images in tool results (`ToolResult.attachments`) travel in the prompt as `content` outputs: the
 * output's JSON as the first text part, then `image-data` parts. Provider types whose
 * `capabilities.vision` is true (Anthropic, Gemini) get them as they are; for the others
 * (`withholdToolImages`) the output goes back to the plain JSON it would have been, so no image
 * data is ever sent as text.
 */

/** About what an image costs a model, in characters of the rough estimate (≈1 500 tokens). */
const IMAGE_CHARS = 4_500;

type ContentOutput = Extract<LanguageModelV3ToolResultOutput, { type: 'content' }>;

/** The tool's own JSON output of a `content` result (its first text part), or its text. */
export function contentOutputValue(output: ContentOutput): JSONValue {
  const first = output.value.find((p) => p.type === 'text') as { text: string } | undefined;
  if (!first) return null;
  try {
    return JSON.parse(first.text) as JSONValue;
  } catch {
    return first.text;
  }
}

/** How many images a `content` result holds. */
export function imageCount(output: ContentOutput): number {
  return output.value.filter((p) => p.type !== 'text').length;
}

/** The prompt with every tool result's images dropped (their outputs as the JSON they carry). */
export function withoutToolImages(prompt: LanguageModelV3Prompt): LanguageModelV3Prompt {
  if (!prompt.some((m) => m.role === 'tool' && m.content.some((p) => p.type === 'tool-result' && p.output.type === 'content'))) return prompt;
  return prompt.map((m) => {
    if (m.role !== 'tool') return m;
    return {
      ...m,
      content: m.content.map((p) => (p.type === 'tool-result' && p.output.type === 'content' ? { ...p, output: { type: 'json' as const, value: contentOutputValue(p.output) } } : p)),
    };
  });
}

/** A client that sends every request without the images in its tool results (a provider type without vision). */
export function withholdToolImages(client: ModelClient): ModelClient {
  return {
    config: client.config,
    stream: (request) => client.stream({ ...request, prompt: withoutToolImages(request.prompt) }),
    contextLength: client.contextLength?.bind(client),
    supportsTools: client.supportsTools?.bind(client),
  };
}

/** JSON.stringify's replacer for size estimates: an image counts as about `IMAGE_CHARS`, not its bytes. */
export function imageSizeReplacer(key: string, value: unknown): unknown {
  if (value && typeof value === 'object' && (value as { type?: unknown }).type === 'image-data') {
    return { type: 'image-data', data: 'x'.repeat(IMAGE_CHARS) };
  }
  return value;
}
