/**
 * A session's tools as one registry plugin: namespaced names, the model's schema, the approval
 * annotations (the page's hints only as claims), and the call that runs one in the page and wraps
 * its result in the untrusted envelope.
 */
import type { Plugin, ToolAnnotations, ToolDefinition } from '@/core/registry/types';
import { untrusted } from '@/core/registry/untrusted';
import { toModelSchema } from '@/core/page/element-schema';
import { pageToolDescription, siteOf, wrapPageResult } from './naming';
import type { Mapped, Session } from './session';
import type { WireCallResult, WireTool } from './wire';

/** How long a form tool without `toolautosubmit` waits for the user's own submit. */
export const FORM_WAIT_MS = 5 * 60_000;

/** What a page plugin asks of the manager that made it. */
export interface PagePluginHost {
  /** Whether the session is still its tab's (a new document replaces it). */
  isCurrent(session: Session): boolean;
  /** What the UI shows may have changed (a form no longer waiting). */
  changed(): void;
}

/** The registry plugin of a session: one tool per mapped page tool, scoped to its tab and origin. */
export function pagePlugin(session: Session, host: PagePluginHost): Plugin {
  const toolByKey = new Map<string, WireTool>();
  for (const group of session.list?.groups ?? []) for (const tool of group.tools) toolByKey.set(tool.key, tool);
  const tools: ToolDefinition[] = [...session.mapped.entries()].map(([modelName, m]) => {
    const wire = toolByKey.get(m.key);
    return {
      name: modelName,
      description: pageToolDescription({
        origin: session.origin,
        tabId: session.tabId,
        group: m.group,
        description: wire?.description ?? '',
        readOnly: wire?.annotations?.readOnlyHint,
        frame: m.frame,
        form: wire?.form,
      }),
      inputSchema: modelSchema(m.schema),
      // A form the user submits themselves may take them a while.
      ...(wire?.form && !wire.form.autosubmit ? { timeoutMs: FORM_WAIT_MS } : {}),
      // The page decides what its tool does, with the user's session on that site: taken as
      // acting until a policy says otherwise. What the page says of it is only a claim.
      annotations: {
        readOnly: false,
        destructive: true,
        openWorld: true,
        pages: true,
        target: () => ({ tabId: session.tabId, url: session.url }),
        claims: pageClaims(wire?.annotations),
      },
      execute: (input: Record<string, unknown>, context) => executePageTool(host, session, modelName, m, input, context.signal, wire?.annotations?.untrustedContentHint === true),
    };
  });
  return {
    id: `page:${session.tabId}`,
    source: 'page',
    name: `${siteOf(session.origin)} (tab ${session.tabId})`,
    description: `Tools offered by the page ${session.url}`,
    scope: { tabId: session.tabId, origin: session.origin },
    tools,
  };
}

/**
 * Runs one of the page's tools. Errors name it by its namespaced name (`modelName`, letters,
 * digits, `_` and `-`), never by the name the page chose, which is the page's words.
 */
async function executePageTool(host: PagePluginHost, session: Session, modelName: string, m: Mapped, input: Record<string, unknown>, signal: AbortSignal, untrustedHint = false): Promise<unknown> {
  if (!host.isCurrent(session)) {
    throw new Error(`The page in tab ${session.tabId} changed: its tool ${modelName} is gone. Call list_page_tools to see what it offers now.`);
  }
  // No tab look-up here: the port belongs to one document, whose origin came from `sender`, so a
  // call can only ever run in that document (a tab that moved to another site dropped it).
  let result: WireCallResult;
  try {
    result = await session.call(m.key, withDefaults(input, m.schema), signal, m.pageName);
  } finally {
    // A form that waited for the user is no longer waiting, whatever the outcome.
    host.changed();
  }
  if (!result.ok) {
    // The page wrote the error: it reaches the model inside the envelope, like a result.
    throw new Error(`The page's tool ${modelName} (${siteOf(session.origin)}) failed. What the page said: ${untrusted(`error from page tool "${m.pageName}" of ${session.origin}`, result.error)}`);
  }
  let value: unknown;
  if (result.cut) {
    value = `${result.json}\n[Output cut: it was ${result.cut.totalChars} characters as JSON. Ask the page tool for less, e.g. a narrower path or a smaller limit.]`;
  } else if (result.json !== '') {
    try {
      value = JSON.parse(result.json);
    } catch {
      throw new Error(`The page's tool ${modelName} returned something that is not JSON.`);
    }
  }
  return wrapPageResult(session.origin, m.pageName, value, untrustedHint);
}

/** The hints a page gave about its tool (WebMCP's annotations), kept as claims. */
function pageClaims(annotations: Record<string, boolean> | undefined): ToolAnnotations['claims'] {
  if (!annotations) return undefined;
  const claims: NonNullable<ToolAnnotations['claims']> = {};
  for (const key of ['readOnlyHint', 'destructiveHint', 'openWorldHint', 'untrustedContentHint'] as const) {
    if (typeof annotations[key] === 'boolean') claims[key] = annotations[key];
  }
  return Object.keys(claims).length ? claims : undefined;
}


/**
 * The schema the model is sent: always an object of named arguments (`{}` means no arguments),
 * with element parameters (`"x-mcp-type": "HTMLElement"`) offered as a reference or a CSS selector.
 */
export function modelSchema(schema: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...toModelSchema(schema), type: 'object' };
  if (out.properties === undefined || typeof out.properties !== 'object') out.properties = {};
  return out;
}

/** Fills in top-level `default`s the model left out, as the seed's `limit` (default 5) expects. */
export function withDefaults(input: Record<string, unknown>, schema: Record<string, unknown>): Record<string, unknown> {
  const properties = schema.properties as Record<string, { default?: unknown }> | undefined;
  if (!properties || typeof properties !== 'object') return input;
  const out = { ...input };
  for (const [key, prop] of Object.entries(properties)) {
    if (out[key] === undefined && prop && typeof prop === 'object' && 'default' in prop) out[key] = prop.default;
  }
  return out;
}
