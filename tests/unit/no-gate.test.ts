// A loop or runner built without a gate (a test, a new caller): the gate is passed explicitly, never
// found on the registry, and without one every call the user would have to allow is refused, not
// run unasked. Calls that need nobody's say-so (closed-world reads, the agent's own lists) still run.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAgentLoop } from '@/core/agent/loop';
import { createOpenAICompatibleClient } from '@/core/agent/providers/openai-compatible-client';
import { AgentRunner } from '@/core/agent/runner';
import { noGate } from '@/core/approvals/no-gate';
import { interpretedValidators } from '@/core/registry/interpreted-validator';
import { defineTool, ToolRegistry } from '@/core/registry/registry';
import type { GatedCall, ToolAnnotations, ToolSpec } from '@/core/registry/types';
import { ConversationStore } from '@/core/storage/conversations';
import { openDb, type StoredMessage, type ToolMessage } from '@/core/storage/db';
import { contentText, startModelServer } from '../model-server/server.mjs';

const READ: ToolAnnotations = { readOnly: true, destructive: false, openWorld: false };
const READ_TAB: ToolAnnotations = { ...READ, pages: true, target: (i: { tab_id?: number }) => ({ tabId: i.tab_id }) };
const FETCH: ToolAnnotations = { readOnly: true, destructive: false, openWorld: true, target: (i: { url: string }) => ({ url: i.url }) };
const OWN_LIST: ToolAnnotations = { readOnly: false, destructive: false, openWorld: false };
const DELETE_FILE: ToolAnnotations = { readOnly: false, destructive: true, openWorld: false };
const CLICK: ToolAnnotations = { readOnly: false, destructive: false, openWorld: true, pages: true, target: (i: { tab_id?: number }) => ({ tabId: i.tab_id }) };

type Server = Awaited<ReturnType<typeof startModelServer>>;
let server: Server;
beforeAll(async () => {
  server = await startModelServer();
});
afterAll(() => server.close());

const client = () => createOpenAICompatibleClient({ baseUrl: server.url, model: 'scripted-model', apiKey: '' });

/** A registry with one tool of each kind; `ran` lists the tools that actually ran. */
function setup() {
  const registry = new ToolRegistry(interpretedValidators);
  const ran: string[] = [];
  const tool = (name: string, annotations: ToolAnnotations) =>
    defineTool({ name, description: name, annotations, inputSchema: { type: 'object' }, execute: () => (ran.push(name), { done: name }) });
  registry.register({
    id: 'test', name: 'Test', description: '', source: 'builtin',
    tools: [tool('read_notes', READ), tool('update_list', OWN_LIST), tool('remove_file', DELETE_FILE), tool('fetch_page', FETCH), tool('click', CLICK)],
  });
  return { registry, ran };
}

const spec = (name: string, annotations: ToolAnnotations): ToolSpec => ({ name, description: '', inputSchema: {}, pluginId: 'p', source: 'builtin', annotations });
const call = (name: string, annotations: ToolAnnotations, input: unknown = {}): GatedCall => ({
  name, input, spec: spec(name, annotations), conversationId: 'c1',
  target: annotations.target ? (annotations.target(input as never, {}) as GatedCall['target']) : undefined,
});

describe('noGate: what a loop without a gate lets through', () => {
  it.each([
    ['a closed-world read', call('read_notes', READ), true],
    ['a read of the user\'s own tab (no tab named)', call('read_tab', READ_TAB, {}), true],
    ['the agent\'s own list (acting, no target, destroys nothing)', call('update_list', OWN_LIST), true],
    ['a read of another tab', call('read_tab', READ_TAB, { tab_id: 4 }), false],
    ['a destructive call', call('remove_file', DELETE_FILE), false],
    ['an acting call on a tab', call('click', CLICK, { tab_id: 2 }), false],
    ['an open-world read (it could carry what was read)', call('fetch_page', FETCH, { url: 'https://example.com/' }), false],
  ])('%s', async (_name, gated, allowed) => {
    const verdict = await noGate.check(gated);
    expect(verdict.ok).toBe(allowed);
    if (!verdict.ok) {
      expect(verdict.result).toMatchObject({ ok: false, code: 'denied' });
      expect(verdict.result.ok ? '' : verdict.result.error).toMatch(new RegExp(`^Not run: ${gated.name} needs the user's approval .*no approval gate`));
    }
  });
});

describe('an agent loop built without a gate', () => {
  it('refuses acting calls with a clear error and does not run them; read-only and own-list calls still run', async () => {
    const { registry, ran } = setup();
    server.queue([
      {
        toolCalls: [
          { name: 'read_notes', arguments: {} },
          { name: 'update_list', arguments: {} },
          { name: 'remove_file', arguments: {} },
          { name: 'click', arguments: { tab_id: 3 } },
          { name: 'fetch_page', arguments: { url: 'https://example.com/' } },
        ],
      },
      { text: 'Done what I could.' },
    ]);
    const messages: StoredMessage[] = [];
    const before = server.requests.length;
    const outcome = await runAgentLoop({
      client: client(),
      registry,
      transcript: {
        conversationId: 'loop-1',
        prepare: async (m) => ({ ...m, id: crypto.randomUUID(), seq: messages.length, createdAt: Date.now() }) as never,
        save: async (saved) => void messages.push(...saved),
        announce: () => undefined,
        delta: () => undefined,
      },
      history: [],
      system: 'Test.',
      maxSteps: 3,
      signal: new AbortController().signal,
    });
    expect(outcome).toMatchObject({ status: 'done' });
    expect(ran).toEqual(['read_notes', 'update_list']);
    const results = Object.fromEntries(
      messages.filter((m): m is ToolMessage => m.role === 'tool' && m.result !== undefined).map((m) => [m.toolName, m.result]),
    );
    expect(results.read_notes).toMatchObject({ ok: true });
    expect(results.update_list).toMatchObject({ ok: true });
    for (const name of ['remove_file', 'click', 'fetch_page']) {
      expect(results[name]).toMatchObject({ ok: false, code: 'denied', error: expect.stringContaining('no approval gate') });
    }
    // The model reads why, and the run goes on.
    const followUp = server.requests[before + 1]!;
    const refused = followUp.messages.filter((m: { role: string }) => m.role === 'tool').map(contentText);
    expect(refused.filter((text: string) => /no approval gate/.test(text))).toHaveLength(3);
  });

  it('an AgentRunner without a gate refuses a destructive call and the conversation ends normally', async () => {
    const { registry, ran } = setup();
    const store = new ConversationStore(openDb(`test-no-gate-${Math.random()}`));
    const runner = new AgentRunner({ store, registry, getClient: async () => client(), getMaxSteps: async () => 5, events: { conversation() {}, message() {}, delta() {} } });
    const conversation = await store.create();
    server.queue([{ toolCalls: [{ name: 'remove_file', arguments: {} }] }, { text: 'I could not.' }]);
    await runner.send(conversation.id, 'Delete it');
    await runner.settled(conversation.id);
    expect(ran).toEqual([]);
    const tool = (await store.messages(conversation.id)).find((m): m is ToolMessage => m.role === 'tool')!;
    expect(tool.result).toMatchObject({ ok: false, code: 'denied', error: expect.stringMatching(/^Not run: remove_file needs the user's approval/) });
    expect((await store.get(conversation.id))!.status).toBe('idle');
  });

  it('the registry holds no gate: nothing set on it changes what a loop asks', () => {
    const { registry } = setup();
    expect('gate' in registry).toBe(false);
  });
});
