/**
 * One server's cached tool list → the tool definitions its plugin offers the model: names,
 * descriptions, checked input schemas and the approval facts. A tool whose schema cannot be
 * checked safely is not offered, and the reason is said on the server's card.
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { said, type Said } from '@/core/i18n/catalog';
import type { ToolAnnotations, ToolDefinition } from '@/core/registry/types';
import { schemaPatternProblem } from '@/core/registry/safe-regex';
import { oneLine } from '@/core/registry/untrusted';
import { mcpToolDescription } from './naming';
import type { mapCallResult } from './results';
import { mcpInputSchema } from './schema';
import { labelOf, serverOrigin } from './server-input';
import type { CachedTool, McpServerConfig } from './types';

/** Runs one of the server's tools by its own name (the service connects first when needed). */
export type McpCall = (toolName: string, input: Record<string, unknown>, signal: AbortSignal) => Promise<ReturnType<typeof mapCallResult>>;

/**
 * The tools of `config` under the model's names (`names`: the server's tool name → the model's),
 * and, when some were left out, why (for the server's card).
 */
export function serverTools(config: McpServerConfig, names: Map<string, string>, call: McpCall): { tools: ToolDefinition[]; notOffered?: Said } {
  const origin = serverOrigin(config);
  const label = labelOf(config);
  const problems: string[] = [];
  // Schemas with a pattern the linear-time engine cannot take (or too large): never validated
  // with a backtracking RegExp, so not offered.
  const badPatterns: string[] = [];
  const tools: ToolDefinition[] = [];
  for (const tool of config.tools) {
    const name = names.get(tool.name)!;
    const inputSchema = mcpInputSchema(tool.inputSchema);
    if (!inputSchema) {
      problems.push(`"${oneLine(tool.name, 60)}"`);
      continue;
    }
    if (schemaPatternProblem(inputSchema)) {
      badPatterns.push(`"${oneLine(tool.name, 60)}"`);
      continue;
    }
    tools.push({
      name,
      description: mcpToolDescription({ server: label, origin, tool: tool.name, title: tool.title ?? tool.annotations?.title, description: tool.description }),
      inputSchema,
      // The server decides what its tool does: taken as acting, destructive and open-world until
      // the user's approval says otherwise; what the server says of it is only a claim.
      annotations: {
        readOnly: false,
        destructive: true,
        openWorld: true,
        // An address from a settings file is not the user's until they confirm it.
        target: () => ({ url: config.url, configured: !config.imported }),
        claims: claimsOf(tool.annotations),
      },
      execute: (input: Record<string, unknown>, context) => call(tool.name, input, context.signal),
    });
  }
  const notOffered = problems.length
    ? said('mcp.errors.notOffered', { tools: problems.join(', ') })
    : badPatterns.length
      ? said('mcp.errors.notOfferedPattern', { tools: badPatterns.join(', ') })
      : undefined;
  return { tools, ...(notOffered ? { notOffered } : {}) };
}

/** What is kept of a tool the server listed (so it is offered again after a restart, before any connection). */
export function cacheTool(tool: Tool): CachedTool {
  const a = tool.annotations;
  const annotations: CachedTool['annotations'] = {};
  for (const key of ['readOnlyHint', 'destructiveHint', 'openWorldHint', 'idempotentHint'] as const) {
    if (typeof a?.[key] === 'boolean') annotations[key] = a[key];
  }
  if (typeof a?.title === 'string') annotations.title = a.title;
  return {
    name: String(tool.name),
    ...(typeof tool.title === 'string' ? { title: tool.title } : {}),
    ...(typeof tool.description === 'string' ? { description: tool.description.slice(0, 8000) } : {}),
    inputSchema: (tool.inputSchema ?? { type: 'object' }) as Record<string, unknown>,
    ...(Object.keys(annotations).length ? { annotations } : {}),
  };
}

/** A server's own hints (MCP tool annotations), kept as claims for the approval policy. */
export function claimsOf(annotations: CachedTool['annotations']): ToolAnnotations['claims'] {
  if (!annotations) return undefined;
  const claims: NonNullable<ToolAnnotations['claims']> = {};
  for (const key of ['readOnlyHint', 'destructiveHint', 'openWorldHint'] as const) {
    if (typeof annotations[key] === 'boolean') claims[key] = annotations[key];
  }
  return Object.keys(claims).length ? claims : undefined;
}
