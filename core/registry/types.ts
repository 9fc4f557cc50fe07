import type { JSONSchema7 } from 'json-schema';
import type { StoredMessage } from '@/core/storage/db';

/**
 * What a tool may use while it runs, besides its input. Built-in tools get all of it; page tools
 * (which run in the page) see none of it.
 */
export interface ToolContext {
  /** Aborted when the user stops the run or the call times out; long tools should listen. */
  signal: AbortSignal;
  /** The conversation the call belongs to, when there is one. */
  conversationId?: string;
  /** The tab the run is bound to (a sub-agent's `tab_id`), when there is one. */
  tabId?: number;
  /** The id of the model's tool call being run, when the call comes from an agent loop. */
  toolCallId?: string;
  /**
   * Set for built-ins that show live activity under their tool card (the `agent` tool): each
   * event is kept on the tool message and forwarded to the sidebar as a `sub_agent_event`.
   */
  onSubAgentEvent?: (event: SubAgentEvent) => void;
}

/**
 * What a sub-agent reports while it works, forwarded to the parent conversation. The sub-agent's
 * own messages are conversation messages of its in-memory transcript (`conversationId` is the
 * sub-agent's id).
 */
export type SubAgentEvent =
  | {
      type: 'start';
      agentId: string;
      agentType: string;
      description?: string;
      prompt: string;
      tabId?: number;
      model?: string;
    }
  | { type: 'message'; agentId: string; message: StoredMessage }
  /** A piece of streamed text; `offset` is where it starts in the message's text. */
  | { type: 'delta'; agentId: string; messageId: string; text: string; offset: number }
  | { type: 'end'; agentId: string; status: 'done' | 'error' | 'stopped' | 'step_limit'; error?: string };

/**
 * One tool, exactly as the seed defines it: a name, a description written for the model, a
 * draft-07 JSON Schema for its input, and the function that runs it. A tool signals failure by
 * throwing; the registry turns that into an error result the model can read.
 */
export interface ToolDefinition<Input = any, Output = unknown> {
  name: string;
  description: string;
  inputSchema: JSONSchema7;
  execute: (input: Input, context: ToolContext) => Output | Promise<Output>;
}

/** A named group of tools, exactly as the seed defines it. */
export interface ToolGroup {
  name: string;
  description: string;
  tools: ToolDefinition[];
}

/** Where a plugin's tools come from; page tools are untrusted input. */
export type PluginSource = 'builtin' | 'page';

/**
 * A plugin is a tool group the registry can switch on and off. Built-in plugins have a fixed id
 * (`tabs`, `web`…); page plugins are scoped to one tab and one origin.
 */
export interface Plugin extends ToolGroup {
  id: string;
  source: PluginSource;
  /** Whether the plugin is on before the user has said anything about it. Default true. */
  enabledByDefault?: boolean;
  /** Page plugins: the tab and origin their tools belong to. */
  scope?: { tabId: number; origin: string };
}

/** Validates one tool input; returns null when it is valid, else a message naming what is wrong. */
export type InputValidator = (input: unknown) => string | null;

/** Makes the validator for a tool's schema. Which strategy depends on where the code runs. */
export type ValidatorFactory = (tool: ToolDefinition, plugin: Plugin) => InputValidator;

/** A tool as the model sees it. */
export interface ToolSpec {
  name: string;
  description: string;
  inputSchema: JSONSchema7;
  pluginId: string;
  source: PluginSource;
  /** Page tools: the site that offered the tool. */
  origin?: string;
  /** Calls of this tool made in the same step may run at the same time (sub-agents). */
  concurrent?: boolean;
}

/** The outcome of one tool call, as data: a tool call never throws into the agent loop. */
export type ToolResult =
  | { ok: true; output: unknown; truncated?: boolean }
  | { ok: false; error: string; code: ToolErrorCode };

export type ToolErrorCode =
  | 'not_found'
  | 'disabled'
  | 'invalid_input'
  | 'timeout'
  | 'aborted'
  | 'failed';
