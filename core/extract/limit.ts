/** Characters of content a reading tool returns when the model does not say (fits the registry's cap). */
export const DEFAULT_MAX_LENGTH = 40_000;
/** The most a reading tool returns at once; a larger `max_length` is lowered to this. */
export const MAX_LENGTH_CAP = 50_000;

/**
 * Cuts `text` to at most `maxLength` characters (default 40 000, at most 50 000), at a line or
 * word break when one is near the end. `truncated` says whether anything was cut.
 */
export function limitText(text: string, maxLength?: number): { text: string; truncated: boolean } {
  const limit = Math.max(1, Math.min(Math.floor(maxLength ?? DEFAULT_MAX_LENGTH), MAX_LENGTH_CAP));
  if (text.length <= limit) return { text, truncated: false };
  let cut = text.slice(0, limit);
  const floor = Math.floor(limit * 0.9);
  const lineBreak = cut.lastIndexOf('\n');
  const space = cut.lastIndexOf(' ');
  if (lineBreak >= floor) cut = cut.slice(0, lineBreak);
  else if (space >= floor) cut = cut.slice(0, space);
  return { text: cut.trimEnd(), truncated: true };
}

/**
 * The input every reading tool takes besides what it reads: a prompt to summarize under, and a
 * length limit (see `limitText`). Spread into a tool schema's `properties`.
 */
export const READING_OPTIONS = {
  prompt: {
    type: 'string',
    description: 'Return only a summary for this prompt.',
  },
  max_length: {
    type: 'integer',
    minimum: 1,
    description: `Default ${DEFAULT_MAX_LENGTH}, at most ${MAX_LENGTH_CAP}.`,
  },
} as const;
