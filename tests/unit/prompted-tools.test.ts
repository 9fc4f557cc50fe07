import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentRunner } from '@/core/agent/runner';
import { looseJson, parseToolCalls, PROMPTED_NOTICE, refusesTools, toPromptedPrompt } from '@/core/agent/prompted-tools';
import { createAgentClient, type NoticeKind } from '@/core/agent/clients';
import type { ProviderConfig } from '@/core/agent/provider';
import { ToolRegistry } from '@/core/registry/registry';
import { interpretedValidators } from '@/core/registry/interpreted-validator';
import { ConversationStore } from '@/core/storage/conversations';
import { openDb, type AssistantMessage, type ToolMessage } from '@/core/storage/db';
import { english } from '@/core/i18n/catalog';
import { startOllamaServer } from '../model-server/ollama.mjs';
import { contentText } from '../model-server/server.mjs';
import { registerTestTools, weatherTool } from './helpers/test-tools';


const names = new Set(['get_weather', 'list_tabs']);

describe('reading prompted tool calls', () => {
  it('reads a fenced tool_call block and keeps the text around it', () => {
    const text = 'Let me check.\n```tool_call\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n```';
    expect(parseToolCalls(text, names)).toEqual({ text: 'Let me check.', calls: [{ name: 'get_weather', input: { city: 'Paris' } }] });
  });

  it.each([
    ['a json fence, args and a trailing comma', '```json\n{"tool": "get_weather", "args": {"city": "Oslo",},}\n```'],
    ['a bare fence with a function wrapper and string arguments', '```\n{"function": {"name": "get_weather", "arguments": "{\\"city\\": \\"Oslo\\"}"}}\n```'],
    ['<tool_call> tags', '<tool_call>{"name": "get_weather", "parameters": {"city": "Oslo"}}</tool_call>'],
    ['a whole answer that is JSON', '{"name": "get_weather", "arguments": {"city": "Oslo"}}'],
    ['a block cut before its closing brace and fence', '```tool_call\n{"name": "get_weather", "arguments": {"city": "Oslo"}'],
  ])('tolerates %s', (_, text) => {
    expect(parseToolCalls(text, names).calls).toEqual([{ name: 'get_weather', input: { city: 'Oslo' } }]);
  });

  it('reads several calls, and leaves code blocks that call no known tool as text', () => {
    const text = '```tool_call\n[{"name": "list_tabs", "arguments": {}}, {"name": "get_weather", "arguments": {"city": "Rome"}}]\n```';
    expect(parseToolCalls(text, names).calls.map((c) => c.name)).toEqual(['list_tabs', 'get_weather']);
    const code = 'Here is an example:\n```json\n{"name": "not_a_tool"}\n```';
    expect(parseToolCalls(code, names)).toEqual({ text: code, calls: [] });
    expect(looseJson('nonsense')).toBeUndefined();
  });

  it('knows a refusal of tools when it sees one', () => {
    expect(refusesTools({ kind: 'bad_request', status: 400, message: 'x', detail: 'registry.ollama.ai/library/gemma:2b does not support tools' })).toBe(true);
    expect(refusesTools({ kind: 'bad_request', status: 400, message: 'x', detail: "'tools' is not supported for this model" })).toBe(true);
    expect(refusesTools({ kind: 'bad_request', status: 400, message: 'x', detail: 'messages: roles must alternate' })).toBe(false);
    expect(refusesTools({ kind: 'auth', status: 401, message: 'x', detail: 'bad tools key' })).toBe(false);
  });

  it('writes the tools into the system prompt and results as messages', () => {
    const prompt = toPromptedPrompt(
      [
        { role: 'system', content: 'You are Sidequest.' },
        { role: 'user', content: [{ type: 'text', text: 'Weather?' }] },
        { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'get_weather', input: { city: 'Paris' } }] },
        { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'get_weather', output: { type: 'json', value: { sky: 'clear' } } }] },
      ],
      [{ name: 'get_weather', description: 'Weather of a city.', inputSchema: { type: 'object' }, pluginId: 'test' } as never],
    );
    expect(prompt[0]).toMatchObject({ role: 'system', content: expect.stringContaining('### get_weather') });
    expect(prompt[2]).toMatchObject({ role: 'assistant', content: [{ type: 'text', text: expect.stringContaining('```tool_call') }] });
    expect(prompt[3]).toMatchObject({ role: 'user', content: [{ type: 'text', text: expect.stringContaining('Tool result (get_weather)') }] });
  });
});

describe('a model that refuses tools (scripted Ollama)', () => {
  let server: Awaited<ReturnType<typeof startOllamaServer>>;
  beforeAll(async () => {
    // An Ollama too old to list capabilities: the refusal itself tells.
    server = await startOllamaServer({ noTools: true, capabilities: false });
  });
  afterAll(() => server.close());

  it('switches to prompted tool calls, says so once, and runs the tools', async () => {
    // A small model: it calls the tool the way the system prompt shows, then answers from the result.
    server.setScript((req) => {
      const last = req.messages.at(-1);
      if (contentText(last).startsWith('Tool result')) return { text: `It is ${/"sky":"(\w+)"/.exec(contentText(last))?.[1]} there.` };
      const system = contentText(req.messages[0]);
      if (system.includes('tool_call') && system.includes('### get_weather')) {
        return { text: 'I will look it up.\n```tool_call\n{"name": "get_weather", "arguments": {"city": "Paris",}}\n```', chunkSize: 5 };
      }
      return { text: 'No tools described.' };
    });
    const store = new ConversationStore(openDb('test-prompted-tools'));
    const registry = new ToolRegistry(interpretedValidators);
    registerTestTools(registry, [
      weatherTool(({ city }) => ({ city, sky: 'sunny' })),
    ]);
    const notices: Array<[NoticeKind, string]> = [];
    const config: ProviderConfig = { type: 'ollama', baseUrl: server.url, model: 'scripted-small' };
    const runner = new AgentRunner({
      store,
      registry,
      getClient: async () => createAgentClient(config, (kind, words) => notices.push([kind, english(words)])),
      getMaxSteps: async () => 5,
      events: { conversation() {}, message() {}, delta() {} },
    });
    const conversation = await store.create();
    await runner.send(conversation.id, 'Weather in Paris?');
    await runner.settled(conversation.id);
    const messages = await store.messages(conversation.id);
    expect((await store.get(conversation.id))!.status).toBe('idle');
    const first = messages[1] as AssistantMessage;
    expect(first.text).toBe('I will look it up.');
    expect(first.toolCalls).toMatchObject([{ name: 'get_weather', input: { city: 'Paris' } }]);
    expect(messages[2] as ToolMessage).toMatchObject({ status: 'done', result: { ok: true, output: { city: 'Paris', sky: 'sunny' } } });
    expect((messages.at(-1) as AssistantMessage).text).toBe('It is sunny there.');
    expect(notices).toEqual([['prompted-tools', english(PROMPTED_NOTICE)]]);
    expect(english(PROMPTED_NOTICE)).toMatch(/no native tool calling/);
    // The first request offered tools and was refused; the later ones carried none.
    expect(server.requests[0]!.body.tools).toHaveLength(1);
    expect(server.requests.slice(1).every((r: { body: { tools?: unknown[] } }) => !r.body.tools?.length)).toBe(true);
  });
});

describe('streaming prompted answers', () => {
  it('passes text on as it comes, and holds back only what may be a call', async () => {
    const { promptedStream } = await import('@/core/agent/prompted-tools');
    const pieces = ['Use the `list', '_tabs` tool', ' if you like. ', 'Or `x`'];
    const client = {
      config: { baseUrl: '', model: '' },
      async *stream() {
        for (const text of pieces) yield { type: 'text' as const, text };
        yield { type: 'finish' as const, finishReason: 'stop' };
      },
    };
    let text = '';
    for await (const e of promptedStream(client, { prompt: [], tools: [{ name: 'list_tabs', description: 'Tabs.', inputSchema: { type: 'object' } } as never], signal: new AbortController().signal })) {
      if (e.type === 'text') text += e.text;
    }
    expect(text).toBe(pieces.join('').trimEnd());
  });

  it('describes only the tools offered, and reads a call of one still in the catalogue (issue 40)', async () => {
    const { promptedStream } = await import('@/core/agent/prompted-tools');
    const offered = { name: 'list_tabs', description: 'Tabs.', inputSchema: { type: 'object' } } as never;
    const waiting = { name: 'list_tasks', description: 'Tasks.', inputSchema: { type: 'object' } } as never;
    let system = '';
    const client = {
      config: { baseUrl: '', model: '' },
      async *stream(request: { prompt: Array<{ role: string; content: unknown }> }) {
        system = String(request.prompt.find((m) => m.role === 'system')?.content ?? '');
        yield { type: 'text' as const, text: '```tool_call\n{"name": "list_tasks", "arguments": {}}\n```' };
        yield { type: 'finish' as const, finishReason: 'stop' };
      },
    };
    const events = [];
    for await (const e of promptedStream(client as never, { prompt: [{ role: 'system', content: 'Be brief.' }], tools: [offered], callable: [offered, waiting], signal: new AbortController().signal })) events.push(e);
    expect(system).toContain('list_tabs');
    expect(system).not.toContain('list_tasks');
    expect(events).toContainEqual(expect.objectContaining({ type: 'tool-call', name: 'list_tasks' }));
  });
});

describe('a model whose provider says it has no tools', () => {
  it('starts with prompted tool calls, without a refused request', async () => {
    const server = await startOllamaServer({ noTools: true });
    try {
      const notices: NoticeKind[] = [];
      const client = createAgentClient({ type: 'ollama', baseUrl: server.url, model: 'scripted-small' }, (kind) => notices.push(kind));
      const tools = [{ name: 'list_tabs', description: 'Tabs.', inputSchema: { type: 'object' } } as never];
      for await (const event of client.stream({ prompt: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }], tools, signal: new AbortController().signal })) void event;
      expect(server.requests).toHaveLength(1);
      expect(server.requests[0]!.body.tools).toBeUndefined();
      expect(contentText(server.requests[0]!.messages[0])).toContain('### list_tabs');
      expect(notices).toEqual(['prompted-tools']);
    } finally {
      await server.close();
    }
  });
});
