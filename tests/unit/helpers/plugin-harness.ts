// One plugin set up as the background sets it up (core/background/registrars/plugins.ts), over the
// real pieces a unit test can hold: a ConversationStore on fake-indexeddb, the real ToolRegistry,
// the real AgentRunner (claims included) and the gate the test gives (the real ApprovalGate, or
// none: `noGate`). The model is a scripted `ModelClient` the test writes; what the plugin sends
// the pages is recorded. Names no plugin: each test installs the ones it needs.
import { vi } from 'vitest';
import { ProviderError, type RunError } from '@/core/agent/errors';
import type { ModelClient, ModelEvent, ModelRequest } from '@/core/agent/provider';
import { promptSections, type PromptSection } from '@/core/agent/prompt';
import { AgentRunner, type RunDriver } from '@/core/agent/runner';
import { ApprovalGate } from '@/core/approvals/gate';
import type { PendingApproval, RunSeed } from '@/core/approvals/types';
import type { ProtocolMap, UiEvent } from '@/core/messaging/protocol';
import { english, saidOf } from '@/core/i18n/catalog';
import type { BuiltinPlugin, PluginContext } from '@/core/plugin';
import { RetainedSets } from '@/core/retained';
import { interpretedValidators } from '@/core/registry/interpreted-validator';
import { ToolRegistry } from '@/core/registry/registry';
import type { ToolGate } from '@/core/registry/types';
import { ConversationStore } from '@/core/storage/conversations';
import { openDb, type SidequestDb } from '@/core/storage/db';
import { pluginStorage } from '@/core/storage/plugin-data';

let dbCount = 0;

/** A model that answers from a script, one list of events per request, and keeps the requests. */
export interface ScriptedModel extends ModelClient {
  requests: ModelRequest[];
  /** Adds answers: each is the events of one request. */
  queue(...answers: ModelEvent[][]): void;
}

/** A scripted model; a request past the script gets a plain answer ("(nothing scripted)"). */
export function scriptedModel(model = 'scripted-model'): ScriptedModel {
  const script: ModelEvent[][] = [];
  const requests: ModelRequest[] = [];
  return {
    config: { type: 'openai-compatible', baseUrl: 'http://model.test', model },
    requests,
    queue: (...answers) => void script.push(...answers),
    async *stream(request) {
      requests.push(request);
      await request.beforeSend;
      const events = script.shift() ?? [{ type: 'text', text: '(nothing scripted)' }, { type: 'finish', finishReason: 'stop', usage: { inputTokens: 10, outputTokens: 5 } }];
      for (const event of events) yield event;
    },
  };
}

/** The events of a model's answer: text, then tool calls, then finish with usage. */
export function answer(text: string, calls: Array<{ name: string; input: unknown; id?: string }> = []): ModelEvent[] {
  return [
    ...(text ? [{ type: 'text', text } as const] : []),
    ...calls.map((c, i) => ({ type: 'tool-call', id: c.id ?? `call-${crypto.randomUUID().slice(0, 8)}-${i}`, name: c.name, input: c.input }) as const),
    { type: 'finish', finishReason: calls.length ? 'tool-calls' : 'stop', usage: { inputTokens: 100, outputTokens: 20 } },
  ];
}

export interface HarnessOptions {
  /** The approval gate every run's calls pass; default none (`noGate`: refuses what it would ask). */
  gate?: ToolGate & { beginRun?(conversationId: string, seed: RunSeed): void };
  /** The conversation's model; a `RunError` instead: no model can be made (no provider set up). */
  model?: ModelClient | RunError;
  /** The tab the user looks at. */
  userTab?: number;
  maxSteps?: number;
  db?: SidequestDb;
}

/** A background in a test: install plugins, send messages, answer their handlers as the pages would. */
export function pluginHarness(options: HarnessOptions = {}) {
  const db = options.db ?? openDb(`test-plugin-harness-${++dbCount}-${Math.random()}`);
  const store = new ConversationStore(db);
  const registry = new ToolRegistry(interpretedValidators);
  registry.userTab = async () => options.userTab;
  const instructions: PromptSection[] = [];
  const claims: Array<(conversationId: string, text: string) => Promise<RunDriver | undefined> | RunDriver | undefined> = [];
  const handlers = new Map<string, (data: never) => unknown>();
  const broadcasts: UiEvent[] = [];
  const asks: Array<(approval: PendingApproval) => void> = [];
  const trustNew: Array<() => boolean | Promise<boolean>> = [];
  const runEnded: Array<(conversationId: string) => void | Promise<void>> = [];
  const deleteAll: Array<() => void | Promise<void>> = [];
  const deleted: Array<(id: string) => void | Promise<void>> = [];
  const shown: string[] = [];
  const badge = { count: 0 };
  /** What the plugins count with `ctx.retained`, by `<plugin>/<name>`. */
  const retained = new RetainedSets();
  const model = options.model;
  const runner = new AgentRunner({
    store,
    registry,
    gate: options.gate,
    getClient: async () => {
      if (!model) throw new ProviderError({ kind: 'unknown', message: 'No model in this test.' });
      if ('stream' in model) return model;
      throw new ProviderError(model);
    },
    getMaxSteps: async () => options.maxSteps ?? 20,
    events: { conversation() {}, message() {}, delta() {} },
    beforeRun: (conversation) => options.gate?.beginRun?.(conversation.id, { trusted: Boolean(conversation.actWithoutAsking), calls: [], ...(conversation.grantedAhead ? { grantedAhead: conversation.grantedAhead } : {}) }),
    afterRun: (conversationId) => {
      if (options.gate instanceof ApprovalGate) options.gate.endRun(conversationId);
      for (const listener of runEnded) void listener(conversationId);
    },
    instructions: (conversation) => promptSections(instructions, conversation),
    claim: async (conversationId, text) => {
      for (const claim of claims) {
        const driver = await claim(conversationId, text);
        if (driver) return driver;
      }
      return undefined;
    },
  });

  /** The context a plugin gets, over this harness's store, registry and runner. */
  function context(pluginId: string): PluginContext {
    return {
      pluginId,
      handle: (type, handler) => void handlers.set(type, handler as (data: never) => unknown),
      setBadgeCount: (count) => void (badge.count = count),
      retained: (name, size, max) => void retained.register(`${pluginId}/${name}`, size, max),
      broadcast: (event) => void broadcasts.push(structuredClone(event)),
      storage: pluginStorage(db, pluginId),
      getModelClient: async () => {
        if (model && 'stream' in model) return model;
        throw new Error('No model in this test.');
      },
      getMaxSteps: async () => options.maxSteps ?? 20,
      configuredOrigins: async () => new Set<string>(),
      addConfiguredOrigins: () => undefined,
      registry,
      gate: options.gate ?? { check: async () => ({ ok: false, result: { ok: false, code: 'denied', error: 'No gate in this test.' } }) },
      holdTabs: (hold) => void (options.gate as { addHold?: (h: typeof hold) => void } | undefined)?.addHold?.(hold),
      instructions: (section) => void instructions.push(section),
      offscreen: (async () => {
        throw new Error('No offscreen document in this test.');
      }) as PluginContext['offscreen'],
      onStartup: (task) => void Promise.resolve().then(task),
      conversations: {
        onDeleted: (listener) => void deleted.push(listener),
        tabsInPlay: async () => new Set<number>(),
        onRunEnd: (listener) => void runEnded.push(listener),
        stop: (conversationId) => runner.stop(conversationId),
        claim: (handler) => void claims.push(handler),
        create: async ({ title, grantedAhead }) => {
          let conversation = await store.create(title);
          if (grantedAhead) conversation = await store.update(conversation.id, { grantedAhead });
          return conversation;
        },
        withdrawGrants: async (conversationId) => {
          (options.gate as { withdrawGrantsAhead?: (id: string) => void } | undefined)?.withdrawGrantsAhead?.(conversationId);
          if ((await store.get(conversationId))?.grantedAhead?.length) await store.update(conversationId, { grantedAhead: [] });
        },
        send: async (conversationId, text) => {
          await runner.send(conversationId, text);
        },
        messages: (conversationId) => store.messages(conversationId),
        get: (conversationId) => store.get(conversationId),
        settled: (conversationId) => runner.settled(conversationId),
      },
      approvals: {
        onAsk: (listener) => void asks.push(listener as (approval: PendingApproval) => void),
        grantForRun: (conversationId, grant) => {
          if (!(options.gate instanceof ApprovalGate)) throw new Error('No gate in this test.');
          options.gate.grantForRun(conversationId, grant);
        },
        withdrawGrant: (conversationId) => void (options.gate instanceof ApprovalGate && options.gate.withdrawGrant(conversationId)),
        actWithoutAskingByDefault: (source) => void trustNew.push(source),
      },
      showConversation: async (conversationId) => void shown.push(conversationId),
      onDeleteAll: (listener) => void deleteAll.push(listener),
      onSettingsImported: () => undefined,
    };
  }

  return {
    db,
    store,
    registry,
    runner,
    broadcasts,
    shown,
    badge,
    retained,
    /** The plugins' sources of "new conversations act without asking". */
    trustNew,
    /** The system prompt's plugin sections for a conversation, as a run would read them. */
    sections: (conversation: Parameters<typeof promptSections>[1]) => promptSections(instructions, conversation),
    /** Sets a plugin up and registers its tools, as the background does; returns its setup. */
    install<S>(plugin: BuiltinPlugin<S>) {
      const setup = plugin.setup?.(context(plugin.id)) ?? undefined;
      registry.register({ id: plugin.id, source: 'builtin', name: plugin.name, description: plugin.description, tools: plugin.tools }, setup?.service);
      return setup;
    },
    context,
    /** Answers a plugin's message as the background's messaging would (errors thrown as thrown). */
    async request<K extends keyof ProtocolMap>(type: K, data: Parameters<ProtocolMap[K]>[0]): Promise<ReturnType<ProtocolMap[K]>> {
      const handler = handlers.get(type);
      if (!handler) throw new Error(`No handler for ${type}.`);
      return (await handler(data as never)) as ReturnType<ProtocolMap[K]>;
    },
    /** A new conversation, a message sent in it, and the run's end awaited. */
    async send(text: string, conversationId?: string) {
      const id = conversationId ?? (await store.create()).id;
      await runner.send(id, text);
      await runner.settled(id);
      return { conversation: (await store.get(id))!, messages: await store.messages(id) };
    },
    /** Runs the Delete all listeners and the conversation-deleted ones, as the background does. */
    async deleteAll() {
      for (const listener of deleteAll) await listener();
    },
    async deleteConversation(id: string) {
      for (const listener of deleted) await listener(id);
      await store.delete(id);
    },
    /** Tells the `onAsk` listeners of an approval card (a test that drives its own gate). */
    asked(approval: PendingApproval) {
      for (const listener of asks) listener(approval);
    },
    /** Waits until `check` holds (a card is up, a run has reached a step). */
    until: (check: () => unknown) => vi.waitFor(() => {
      if (!check()) throw new Error('not yet');
    }),
  };
}

export type PluginHarness = ReturnType<typeof pluginHarness>;

/** The English words of what a plugin's handler threw (its `SaidError`'s, else the message); fails when nothing was thrown. */
export async function refusal(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    const words = saidOf(error);
    return words ? english(words) : String((error as Error).message);
  }
  throw new Error('expected a refusal');
}
