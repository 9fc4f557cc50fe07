import type { FromSchema } from 'json-schema-to-ts';
import { browser } from 'wxt/browser';
import { runAgentLoop, type Transcript } from '@/core/agent/loop';
import type { ModelClient } from '@/core/agent/provider';
import { english } from '@/core/i18n/catalog';
import { definePlugin, type PluginContext } from '@/core/plugin';
import { defineTool, type ToolRegistry } from '@/core/registry/registry';
import type { ToolGate } from '@/core/registry/types';
import { stampMessage, type NewMessage } from '@/core/storage/conversations';
import type { StoredMessage, UserMessage } from '@/core/storage/db';
import { reduceSubAgentActivity, type SubAgentEvent } from './record';
import { subagentsSchemas } from './schemas';
import { allowFor, bindToTab, subAgentPrompt, type SubAgentType } from './types';

/** How long one sub-agent may work in all before it is stopped. */
export const SUB_AGENT_TIMEOUT_MS = 15 * 60_000;

/** What the `agent` tool uses: the registry its loops run over, the parent's approval gate, the model, the step limit. */
export interface SubAgentServices {
  registry: ToolRegistry;
  gate: ToolGate;
  getModelClient(conversationId?: string): Promise<ModelClient>;
  getMaxSteps(): Promise<number>;
}

export interface SubAgentResult {
  answer: string;
  type: SubAgentType;
  /** Model calls the sub-agent made. */
  steps: number;
}

/** A sub-agent's transcript: in memory, every message forwarded to the parent as an event. */
export function memoryTranscript(agentId: string, emit: (event: SubAgentEvent) => void): Transcript & { messages: StoredMessage[] } {
  let seq = 0;
  const messages: StoredMessage[] = [];
  return {
    conversationId: agentId,
    messages,
    async prepare<M extends StoredMessage>(message: NewMessage<M>): Promise<M> {
      return stampMessage(message, seq++);
    },
    save: async (saved) => {
      for (const m of saved) {
        const at = messages.findIndex((x) => x.id === m.id);
        if (at >= 0) messages[at] = m;
        else messages.push(m);
      }
    },
    announce: (message) => emit({ type: 'message', agentId, message }),
    delta: (messageId, text, offset) => emit({ type: 'delta', agentId, messageId, text, offset }),
  };
}

/** The built-in `subagents` plugin: `agent`, a separate agent loop for a sub-task. */
export const subagentsPlugin = definePlugin<SubAgentServices>({
    id: 'subagents',
    name: 'Sub-agents',
    description: 'Lets the agent hand a sub-task to a sub-agent with its own context and a narrower set of tools; you see its steps nested.',
    tools: [
      defineTool<FromSchema<typeof subagentsSchemas.agent>, SubAgentResult, SubAgentServices>({
        name: 'agent',
        description:
          'Run a sub-agent with its own context on a sub-task and get its answer; it cannot ask the user or start agents, and agent calls of one step run in parallel.',
        inputSchema: subagentsSchemas.agent,
        timeoutMs: SUB_AGENT_TIMEOUT_MS,
        concurrent: true,
        // What it does is what its tools do; each of them is checked on its own when it runs.
        annotations: { readOnly: false, destructive: false, openWorld: false },
        reduceActivity: reduceSubAgentActivity,
        async execute({ prompt, description, type = 'general', tab_id }, context) {
          const services = context.service;
          if (tab_id !== undefined) {
            await browser.tabs.get(tab_id).catch(() => {
              throw new Error(`Tab ${tab_id} does not exist (it may have been closed). List the open tabs to find the right one.`);
            });
          }
          // The parent conversation's model (the one the user picked there).
          const client = await services.getModelClient(context.conversationId).catch((error: Error) => {
            throw new Error(`The sub-agent could not start: ${error.message}`);
          });
          const maxSteps = await services.getMaxSteps();
          const agentId = crypto.randomUUID();
          const emit = (event: SubAgentEvent) => context.reportActivity?.(event);
          emit({ type: 'start', agentId, agentType: type, description, prompt, tabId: tab_id, model: client.config.model });
          const transcript = memoryTranscript(agentId, emit);
          const user = await transcript.prepare<UserMessage>({ role: 'user', conversationId: agentId, text: prompt });
          await transcript.save([user]);
          transcript.announce(user);
          const history: StoredMessage[] = [user];
          let outcome: Awaited<ReturnType<typeof runAgentLoop>>;
          try {
            outcome = await runAgentLoop({
              client,
              registry: services.registry,
              // The parent's gate: each of its calls is asked about as the main agent's would be.
              gate: services.gate,
              transcript,
              history,
              system: subAgentPrompt(type, tab_id),
              maxSteps,
              signal: context.signal,
              allow: allowFor(type),
              checkCall: tab_id !== undefined ? bindToTab(tab_id, (name) => services.registry.describe(name)) : undefined,
              // Its tools act for the parent's conversation (tasks, questions) and in its tab.
              toolContext: { conversationId: context.conversationId, tabId: tab_id, agentLabel: description || `${type} sub-agent` },
            });
          } catch (error) {
            emit({ type: 'end', agentId, status: 'error', error: (error as Error).message });
            throw new Error(`The sub-agent failed: ${(error as Error).message}`);
          }
          const steps = transcript.messages.filter((m) => m.role === 'assistant').length;
          switch (outcome.status) {
            case 'done':
              emit({ type: 'end', agentId, status: 'done' });
              return { answer: outcome.answer.text, type, steps };
            case 'stopped':
              emit({ type: 'end', agentId, status: 'stopped' });
              throw new Error('The sub-agent was stopped.');
            case 'error':
              emit({ type: 'end', agentId, status: 'error', error: outcome.error.message });
              throw new Error(`The sub-agent failed: ${outcome.error.message}`);
            case 'step_limit': {
              emit({ type: 'end', agentId, status: 'step_limit' });
              const last = outcome.lastText ? ` Its last words: "${outcome.lastText.slice(0, 2000)}"` : '';
              throw new Error(`The sub-agent used all ${maxSteps} steps without a final answer. Give it a smaller task.${last}`);
            }
            case 'loop':
              emit({ type: 'end', agentId, status: 'error', error: 'stopped: it was repeating itself' });
              throw new Error(`The sub-agent was stopped: ${english(outcome.notice)} Give it a different task or do this step yourself.`);
            case 'budget':
              // Sub-agents run without a token budget of their own; kept for completeness.
              emit({ type: 'end', agentId, status: 'error', error: 'token budget reached' });
              throw new Error(`The sub-agent reached its token budget (${outcome.used} of ${outcome.limit} tokens).`);
          }
        },
      }),
    ],
  setup: (ctx: PluginContext) => ({
    service: { registry: ctx.registry, gate: ctx.gate, getModelClient: ctx.getModelClient, getMaxSteps: ctx.getMaxSteps },
  }),
});
