import type { ToolAttachment } from './types';

/**
 * Images a tool hands the model beside its JSON output (an MCP server's image content, say). The
 * registry keeps them apart from the output (`ToolResult.attachments`): the output stays JSON and
 * capped as ever; the images reach the model in the shape its provider type reads
 * (`core/agent/tool-images.ts`: in the tool result, or in a user message after it), or as a note
 * saying they were left out where the model sees no images — the output should say in words that
 * an image was returned.
 */

/** The image types every provider that takes images in tool results accepts. */
export const ATTACHMENT_TYPES: readonly string[] = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];
/** At most this many images per result… */
export const MAX_ATTACHMENTS = 4;
/** …of at most this many base64 characters each (about 3.75 MB: Anthropic's 5 MB per image, with room). */
export const MAX_ATTACHMENT_CHARS = 5_000_000;

const BRAND = Symbol.for('sidequest.toolOutputWithAttachments');

/** An output with images, as a tool returns it; the registry unpacks it. */
export interface OutputWithAttachments {
  readonly [BRAND]: true;
  output: unknown;
  attachments: ToolAttachment[];
}

/** Returns `output` with images for the model (kept only when their type and size are accepted). */
export function withAttachments(output: unknown, attachments: ToolAttachment[]): OutputWithAttachments {
  return { [BRAND]: true, output, attachments };
}

/** Splits what a tool returned into its output and its accepted attachments. */
export function takeAttachments(value: unknown): { output: unknown; attachments?: ToolAttachment[] } {
  if (!value || typeof value !== 'object' || (value as Partial<OutputWithAttachments>)[BRAND] !== true) return { output: value };
  const { output, attachments } = value as OutputWithAttachments;
  const kept = (Array.isArray(attachments) ? attachments : [])
    .filter((a) => a && a.type === 'image' && ATTACHMENT_TYPES.includes(a.mediaType) && typeof a.data === 'string' && a.data.length > 0 && a.data.length <= MAX_ATTACHMENT_CHARS && /^[A-Za-z0-9+/=\s]+$/.test(a.data.slice(0, 4096)))
    .slice(0, MAX_ATTACHMENTS)
    .map((a) => ({ type: 'image' as const, mediaType: a.mediaType, data: a.data.replace(/\s+/g, '') }));
  return kept.length ? { output, attachments: kept } : { output };
}
