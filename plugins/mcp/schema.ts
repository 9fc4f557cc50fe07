import type { JSONSchema7 } from 'json-schema';

/** The largest input schema taken from a server (as JSON): a bigger one is refused for that tool. */
export const MAX_SCHEMA_CHARS = 32_000;
/** Deeper schemas are refused: validating them could cost too much. */
export const MAX_SCHEMA_DEPTH = 24;

/**
 * The input schema the model is sent and the registry validates against (in the background,
 * interpreted by `@cfworker/json-schema`, no eval): always an object of named arguments. An MCP
 * tool's `inputSchema` must be `{type: "object"}`; a server that sends something else gets `{}`
 * properties rather than a broken tool. Returns null when the schema is too big or too deep.
 */
export function mcpInputSchema(raw: unknown): JSONSchema7 | null {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return { type: 'object', properties: {} };
  let json: string;
  try {
    json = JSON.stringify(raw);
  } catch {
    return null;
  }
  if (json.length > MAX_SCHEMA_CHARS || depth(raw, 0) > MAX_SCHEMA_DEPTH) return null;
  const copy = JSON.parse(json) as Record<string, unknown>;
  // The `$schema` the server names (2020-12 by default in MCP) is not one the validator resolves
  // by URL; the keywords tools use are the same in draft-07.
  delete copy.$schema;
  const out: Record<string, unknown> = { ...copy, type: 'object' };
  if (!out.properties || typeof out.properties !== 'object' || Array.isArray(out.properties)) out.properties = {};
  return out as JSONSchema7;
}

function depth(value: unknown, level: number): number {
  if (level > MAX_SCHEMA_DEPTH) return level;
  if (!value || typeof value !== 'object') return level;
  let max = level;
  for (const child of Object.values(value as Record<string, unknown>)) max = Math.max(max, depth(child, level + 1));
  return max;
}
