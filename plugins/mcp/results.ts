import { ATTACHMENT_TYPES, MAX_ATTACHMENT_CHARS, MAX_ATTACHMENTS, withAttachments, type OutputWithAttachments } from '@/core/registry/attachments';
import type { ToolAttachment } from '@/core/registry/types';
import { untrusted } from '@/core/registry/untrusted';

/** The most characters of a server's answer the model gets (inside the envelope); the rest is cut, with a note. */
export const MAX_RESULT_CHARS = 50_000;
/** The most characters of a server's error text the model gets. */
export const MAX_ERROR_CHARS = 2_000;

/** One content block of an MCP `CallToolResult` (the fields this mapping reads). */
export interface McpContentBlock {
  type: string;
  text?: string;
  data?: string;
  mimeType?: string;
  uri?: string;
  name?: string;
  title?: string;
  description?: string;
  resource?: { uri?: string; mimeType?: string; text?: string; blob?: string };
}

/** What an MCP server answers to `tools/call` (the fields this mapping reads). */
export interface McpCallResult {
  content?: McpContentBlock[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** Where an answer came from, for the envelope's `source`. */
export interface ResultSource {
  server: string;
  origin: string;
  tool: string;
}

/** The images of a result the model can be shown (accepted types and sizes, at most four). */
export function resultImages(result: McpCallResult): ToolAttachment[] {
  const out: ToolAttachment[] = [];
  for (const block of Array.isArray(result.content) ? result.content : []) {
    if (out.length >= MAX_ATTACHMENTS) break;
    if (block?.type === 'image' && typeof block.data === 'string' && block.data.length <= MAX_ATTACHMENT_CHARS && ATTACHMENT_TYPES.includes(block.mimeType ?? '')) {
      out.push({ type: 'image', mediaType: block.mimeType!, data: block.data });
    }
  }
  return out;
}

/** The result as the model reads it, before the envelope: plain text when text is all there is. */
export function resultPayload(result: McpCallResult): unknown {
  const texts: string[] = [];
  const links: Array<Record<string, string>> = [];
  const resources: Array<Record<string, unknown>> = [];
  const media: Array<Record<string, unknown>> = [];
  let images = 0;
  for (const block of Array.isArray(result.content) ? result.content : []) {
    if (!block || typeof block !== 'object') continue;
    switch (block.type) {
      case 'text':
        if (typeof block.text === 'string') texts.push(block.text);
        break;
      case 'resource_link':
        links.push(compact({ uri: block.uri, name: block.name, title: block.title, description: block.description, mime_type: block.mimeType }));
        break;
      case 'resource': {
        const r = block.resource ?? {};
        resources.push(
          compact({
            uri: r.uri,
            mime_type: r.mimeType,
            text: typeof r.text === 'string' ? r.text : undefined,
            note: typeof r.blob === 'string' ? `binary content of ${base64Bytes(r.blob)} bytes, not shown` : undefined,
          }),
        );
        break;
      }
      case 'image':
      case 'audio': {
        // Images of the usual types go with the result as attachments, which the model sees where
        // its provider takes images in tool results; the words here say so either way.
        const attached = block.type === 'image' && images < MAX_ATTACHMENTS && ATTACHMENT_TYPES.includes(block.mimeType ?? '') && typeof block.data === 'string' && block.data.length <= MAX_ATTACHMENT_CHARS;
        if (attached) images++;
        media.push(
          compact({
            type: block.type,
            mime_type: block.mimeType,
            size_bytes: typeof block.data === 'string' ? base64Bytes(block.data) : undefined,
            note: attached ? `attached to this result as image ${images} (not shown if the model cannot see images)` : `the ${block.type} is not shown to the model`,
          }),
        );
        break;
      }
      default:
        media.push({ type: String(block.type), note: 'a content type Sidequest does not read' });
    }
  }
  const structured = result.structuredContent && typeof result.structuredContent === 'object' ? result.structuredContent : undefined;
  const text = texts.join('\n\n');
  if (!structured && !links.length && !resources.length && !media.length) return text;
  const out: Record<string, unknown> = {};
  // Servers also write their structured content as JSON text (for older clients): say it once.
  if (text && !(structured && sameJson(text, structured))) out.text = text;
  if (structured) out.structured_content = structured;
  if (links.length) out.resource_links = links;
  if (resources.length) out.resources = resources;
  if (media.length) out.media = media;
  return out;
}

/**
 * Maps a `tools/call` answer to what the tool returns: the server's content inside the untrusted
 * envelope, cut at `MAX_RESULT_CHARS`. An error result (`isError`) throws, its text enveloped too,
 * so the registry gives the model `{ok: false}` with the server's words marked as the server's.
 */
export function mapCallResult(result: McpCallResult, from: ResultSource): string | OutputWithAttachments {
  const payload = resultPayload(result);
  let text = typeof payload === 'string' ? payload : JSON.stringify(payload);
  if (result.isError) {
    if (text.length > MAX_ERROR_CHARS) text = `${text.slice(0, MAX_ERROR_CHARS)}…`;
    throw new Error(`The MCP server "${from.server}" reports that its tool "${from.tool}" failed. What it said: ${untrusted(sourceOf(from, 'error'), text || '(no details)')}`);
  }
  if (text.length > MAX_RESULT_CHARS) {
    text = `${text.slice(0, MAX_RESULT_CHARS)}\n[Output cut: it was ${text.length} characters. Ask the tool for less.]`;
  }
  const wrapped = untrusted(sourceOf(from, 'result'), text);
  const images = resultImages(result);
  return images.length ? withAttachments(wrapped, images) : wrapped;
}

function sourceOf(from: ResultSource, kind: 'result' | 'error'): string {
  return `${kind} of MCP tool "${from.tool}" of server "${from.server}" (${from.origin})`;
}

function compact<T extends Record<string, unknown>>(value: T): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(value)) if (v !== undefined && v !== null && v !== '') out[k] = typeof v === 'string' ? v : String(v);
  return out;
}

function base64Bytes(data: string): number {
  const clean = data.replace(/\s+/g, '');
  const padding = clean.endsWith('==') ? 2 : clean.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((clean.length * 3) / 4) - padding);
}

function sameJson(text: string, value: unknown): boolean {
  try {
    return JSON.stringify(JSON.parse(text)) === JSON.stringify(value);
  } catch {
    return false;
  }
}
