import type { JSONValue, LanguageModelV3Message, LanguageModelV3Prompt, LanguageModelV3ToolResultOutput } from '@ai-sdk/provider';
import { addBounded } from '@/core/retained';
import { ProviderError, type RunError } from './errors';
import type { ModelClient, ProviderConfig } from './provider';
import type { ToolImageMode } from './providers/define';
import { providerOf } from './providers/list';

/**
 * Images in tool results (`ToolResult.attachments`) travel in the prompt as `content` outputs: the
 * output's JSON as the first text part, then `image-data` parts (history.ts). Right before the
 * request leaves, they take the shape the profile's model can read (`toolImagesFor`):
 * - 'in-result': as they are; the provider package puts them in the tool result (Anthropic's
 *   `image` blocks in `tool_result`, Gemini's `inlineData` beside or in the `functionResponse`);
 * - 'as-user-message': the tool result keeps its JSON (as without images), and one user message
 *   after the step's results holds the images, each after a line naming its call (Chat Completions
 *   `image_url` parts, Ollama's `images`): those wire formats have no images in tool messages;
 * - 'none': the JSON and a note saying the images were left out; no image bytes are sent.
 * Images are passed as the tool gave them (PNG/JPEG, scaled by the tool): nothing is re-encoded.
 */

/** About what an image costs a model, in characters of the rough estimate (≈1 500 tokens). */
export const IMAGE_CHARS = 4_500;

type ContentOutput = Extract<LanguageModelV3ToolResultOutput, { type: 'content' }>;
type ImagePart = Extract<ContentOutput['value'][number], { type: 'image-data' }>;

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

function images(output: ContentOutput): ImagePart[] {
  return output.value.filter((p): p is ImagePart => p.type === 'image-data');
}

const plural = (n: number) => `${n} image${n === 1 ? '' : 's'}`;

/** The note a model without images reads in place of them. */
export function leftOutNote(count: number): string {
  return `[${plural(count)} left out: this model does not take images]`;
}

/** The tool's JSON as text, then a note the model reads. */
function withNote(output: ContentOutput, note: string): LanguageModelV3ToolResultOutput {
  const value = output.value.find((p) => p.type === 'text') as { text: string } | undefined;
  return { type: 'text', value: `${value?.text ?? 'null'}\n${note}` };
}

function hasImages(prompt: LanguageModelV3Prompt): boolean {
  return prompt.some((m) => m.role === 'tool' && m.content.some((p) => p.type === 'tool-result' && p.output.type === 'content' && imageCount(p.output) > 0));
}

/** The prompt with every tool result's images replaced by a note saying they were left out. */
export function withoutToolImages(prompt: LanguageModelV3Prompt): LanguageModelV3Prompt {
  if (!hasImages(prompt)) return prompt;
  return prompt.map((m) => {
    if (m.role !== 'tool') return m;
    return {
      ...m,
      content: m.content.map((p) => {
        if (p.type !== 'tool-result' || p.output.type !== 'content') return p;
        const count = imageCount(p.output);
        return { ...p, output: count ? withNote(p.output, leftOutNote(count)) : { type: 'json' as const, value: contentOutputValue(p.output) } };
      }),
    };
  });
}

/**
 * The prompt with every tool result's images moved to one user message right after the step's
 * tool message, each image after a line naming the call it belongs to (by its id, which the
 * model wrote, and its tool's name).
 */
export function toolImagesAsUserMessages(prompt: LanguageModelV3Prompt): LanguageModelV3Prompt {
  if (!hasImages(prompt)) return prompt;
  const out: LanguageModelV3Prompt = [];
  for (const m of prompt) {
    if (m.role !== 'tool') {
      out.push(m);
      continue;
    }
    const parts: Extract<LanguageModelV3Message, { role: 'user' }>['content'] = [];
    const content = m.content.map((p) => {
      if (p.type !== 'tool-result' || p.output.type !== 'content') return p;
      const found = images(p.output);
      if (!found.length) return { ...p, output: { type: 'json' as const, value: contentOutputValue(p.output) } };
      found.forEach((image, i) => {
        parts.push({ type: 'text', text: `Image ${i + 1} of ${found.length} returned by the call ${p.toolCallId} (${p.toolName}):` });
        parts.push({ type: 'file', mediaType: image.mediaType, data: image.data });
      });
      return { ...p, output: { type: 'json' as const, value: contentOutputValue(p.output) } };
    });
    out.push({ ...m, content });
    if (parts.length) out.push({ role: 'user', content: parts });
  }
  return out;
}

/** The prompt in the shape `mode` wants. */
export function shapeToolImages(prompt: LanguageModelV3Prompt, mode: ToolImageMode): LanguageModelV3Prompt {
  if (mode === 'in-result') return prompt;
  return mode === 'as-user-message' ? toolImagesAsUserMessages(prompt) : withoutToolImages(prompt);
}

/**
 * Model names that take text only, for profiles on "Auto": text models of families whose vision
 * models have their own names (Llama 3.2 Vision, Qwen-VL, Phi-4-multimodal…), and APIs without
 * image input (DeepSeek's). Kept short and sure: a name missing here only means the provider is
 * asked with images, and the profile's "No" says the rest.
 */
const TEXT_ONLY =
  /(^|[/:])(deepseek-(chat|reasoner|r1|v2|v3|coder)|gpt-3\.5|o1-mini|o3-mini|gpt-oss|llama-?[23](\.\d)?\b|codellama|codestral|mixtral|mistral(-nemo|-7b|:|$)|open-mistral|phi-?[34](\.\d)?\b|qwq|qwen(2\.5|2|3)?(-coder)?([:_-]|$)|gemma-?2|gemma-?3:?-?1b|command-r|smollm|tinyllama|starcoder)/i;
/** …unless the name says it sees. */
const SEES = /vision|-vl|vl[:_-]|vl$|multimodal|omni|pixtral|llava/i;

/** Whether a model name is one known to take text only. */
export function knownTextOnly(model: string): boolean {
  const name = model.trim();
  return TEXT_ONLY.test(name) && !SEES.test(name);
}

/**
 * How tool images reach the profile's model: the provider type's way, unless the profile says
 * the model sees no images, or (profile on Auto) the provider says so (Ollama's `/api/show`) or
 * the model's name is a known text-only one.
 */
export async function toolImagesFor(config: ProviderConfig, client?: Pick<ModelClient, 'supportsImages'>): Promise<ToolImageMode> {
  const typeMode = providerOf(config.type).capabilities.toolImages;
  if (typeMode === 'none' || config.images === 'no') return 'none';
  if (config.images === 'yes') return typeMode;
  const said = await Promise.resolve(client?.supportsImages?.()).catch(() => undefined);
  if (said !== undefined) return said ? typeMode : 'none';
  return knownTextOnly(config.model) ? 'none' : typeMode;
}

/** The provider's words when a model takes no images ("image_url is only supported by certain models", "not a multimodal model"…). */
export function refusesImages(info: RunError): boolean {
  const words = `${info.detail ?? ''} ${info.kind === 'bad_request' ? info.message : ''}`;
  return (info.status === 400 || info.status === 422 || info.status === 500) && /image|vision|multi-?modal|unknown variant/i.test(words);
}

/** Models (type, address, model) that refused images, for the background's life. */
const refusedImages = new Set<string>();
export const MAX_REFUSED = 32;

/** How many models are known to refuse images (`core/retained.ts`). */
export const refusedImageModels = (): number => refusedImages.size;

/**
 * A client whose requests carry tool images the way its model reads them (`toolImagesFor`). On
 * Auto, a model that refuses a request with images before answering (a text-only model the name
 * list does not know) is asked again with the note instead, and from then on.
 */
export function withToolImages(client: ModelClient, mode: () => Promise<ToolImageMode>): ModelClient {
  const key = `${client.config.type ?? 'openai-compatible'} ${client.config.baseUrl} ${client.config.model}`;
  return {
    ...client,
    stream: async function* (request) {
      const chosen = refusedImages.has(key) ? 'none' : await mode();
      const prompt = shapeToolImages(request.prompt, chosen);
      let started = false;
      try {
        for await (const event of client.stream({ ...request, prompt })) {
          started = true;
          yield event;
        }
      } catch (error) {
        const retry = !started && chosen !== 'none' && client.config.images !== 'yes' && hasImages(request.prompt) && !request.signal.aborted;
        if (!retry || !(error instanceof ProviderError) || !refusesImages(error.info)) throw error;
        addBounded(refusedImages, key, MAX_REFUSED);
        yield* client.stream({ ...request, prompt: withoutToolImages(request.prompt) });
      }
    },
  };
}

/**
 * JSON.stringify's replacer for size estimates: an image counts as about `imageChars`, not its
 * bytes (0: the model is sent a short note instead).
 */
export function imageSizeReplacer(imageChars = IMAGE_CHARS): (key: string, value: unknown) => unknown {
  const stand = { type: 'image', data: 'x'.repeat(imageChars) };
  return (_key, value) => {
    if (!value || typeof value !== 'object') return value;
    const part = value as { type?: unknown; mediaType?: unknown };
    if (part.type === 'image-data' || (part.type === 'file' && typeof part.mediaType === 'string' && part.mediaType.startsWith('image/'))) {
      return imageChars ? stand : { type: 'image', note: leftOutNote(1) };
    }
    return value;
  };
}
