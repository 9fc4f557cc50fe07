// The user's data: the archive format (export, parse, import: all or nothing, no duplicates),
// Markdown, traces (credentials redacted), the run's token budget, the settings file.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withCost } from '@/core/agent/loop';
import { REPEAT_NOTICE } from '@/core/agent/loop-guard';
import { AgentRunner } from '@/core/agent/runner';
import { createOpenAICompatibleClient } from '@/core/agent/providers/openai-compatible-client';
import { ARCHIVE_FORMAT, ImportError, MAX_IMPORT_BYTES, parseArchive, type Archive } from '@/core/data/archive';
import { archiveToMarkdown, exportFileName } from '@/core/data/markdown';
import { exportSettingsFile } from '@/core/data/settings-file';
import { applySettingsImport, planSettingsImport } from '@/core/data/settings-import';
import { clearDatabase, exportConversations, importArchive } from '@/core/data/store';
import { english } from '@/core/i18n/catalog';
import { redactHeaders, redactUrl, REDACTED, scrubSecrets, traceToText, type StepTrace } from '@/core/data/trace';
import { interpretedValidators } from '@/core/registry/interpreted-validator';
import { defineTool, ToolRegistry } from '@/core/registry/registry';
import { ConversationStore } from '@/core/storage/conversations';
import { openDb, type StoredMessage } from '@/core/storage/db';
import { agentSettings, providerSettingsStore } from '@/core/storage/settings';
import { startModelServer } from '../model-server/server.mjs';

let n = 0;
const freshDb = () => openDb(`test-data-${++n}-${Math.random()}`);

/** Both steps of a settings import at once (the preview and its rules: settings-import.test.ts). */
async function importSettingsFile(db: ReturnType<typeof openDb>, text: string) {
  const plan = await planSettingsImport(db, text, { plugins: [] });
  await applySettingsImport(db, plan);
  return plan.applied;
}

/** A conversation with a user message, an answer with a tool call, its result with sub-agent activity, and a final answer. */
async function seed(store: ConversationStore, title = 'Tabs') {
  const c = await store.create(title);
  await store.append({ role: 'user', conversationId: c.id, text: 'Which tabs?' });
  await store.append({ role: 'assistant', conversationId: c.id, text: 'Looking.', status: 'complete', toolCalls: [{ id: 'call_1', name: 'agent', input: { task: 'x' } }], usage: { inputTokens: 10, outputTokens: 5, cachedInputTokens: 6, cacheWriteTokens: 2 } });
  await store.append({ role: 'tool', conversationId: c.id, toolCallId: 'call_1', toolName: 'agent', input: { task: 'x' }, status: 'done', result: { ok: true, output: { answer: 'two' }, notice: REPEAT_NOTICE }, activity: { steps: [{ tool: 'list_tabs', status: 'done' }] } });
  await store.append({ role: 'assistant', conversationId: c.id, text: 'Two tabs.', status: 'complete', toolCalls: [] });
  return store.getOrThrow(c.id);
}

describe('the conversation archive', () => {
  it('export → JSON → parse → import into an empty database gives back the same conversations, activity included', async () => {
    const store = new ConversationStore(freshDb());
    await seed(store, 'First');
    await seed(store, 'Second');
    const archive = await exportConversations(store);
    expect(archive).toMatchObject({ format: ARCHIVE_FORMAT, version: 1 });
    expect(archive.conversations).toHaveLength(2);
    const text = JSON.stringify(archive);

    const db = freshDb();
    const target = new ConversationStore(db);
    const outcome = await importArchive(db, parseArchive(text));
    expect(outcome.added).toHaveLength(2);
    expect(outcome.skipped).toBe(0);
    const again = await exportConversations(target);
    expect(JSON.parse(JSON.stringify(again.conversations))).toEqual(JSON.parse(text).conversations);
    const tool = again.conversations[0]!.messages.find((m) => m.role === 'tool')!;
    // The loop guard's line after a result comes back too.
    expect(tool).toMatchObject({ result: { notice: REPEAT_NOTICE }, activity: { steps: [{ tool: 'list_tabs', status: 'done' }] } });

    // Importing again adds nothing.
    expect(await importArchive(db, parseArchive(text))).toMatchObject({ added: [], skipped: 2 });
    expect(await db.messages.count()).toBe(8);
    // New messages continue after the imported ones.
    const next = await target.append({ role: 'user', conversationId: outcome.added[0]!.id, text: 'more' });
    expect(next.seq).toBe(4);
  });

  it('names what is wrong: not JSON, truncated, another format, a newer version, a bad field (with its place)', () => {
    const good = JSON.stringify({ format: ARCHIVE_FORMAT, version: 1, exportedAt: 'x', conversations: [] });
    expect(() => parseArchive('hello')).toThrow(/not valid JSON/);
    expect(() => parseArchive(good.slice(0, -5))).toThrow(/not valid JSON.*truncated/);
    expect(() => parseArchive('[]')).toThrow(/holds no export object/);
    expect(() => parseArchive('{"format":"sidequest-settings","version":1}')).toThrow(/settings file/);
    expect(() => parseArchive('{"format":"other"}')).toThrow(/"format" is "other"/);
    expect(() => parseArchive(good.replace('"version":1', '"version":7'))).toThrow(/version 7, made by a newer Sidequest/);
    expect(() => parseArchive(good.replace('"version":1', '"version":"1"'))).toThrow(/format version is "1"/);
    const bad = { format: ARCHIVE_FORMAT, version: 1, exportedAt: 'x', conversations: [{ conversation: { id: 'c', title: 't', createdAt: 1, updatedAt: 1, status: 'idle' }, messages: [{ id: 'm', conversationId: 'c', seq: -1, createdAt: 1, role: 'user', text: 'hi' }] }] };
    expect(() => parseArchive(JSON.stringify(bad))).toThrow(/conversations\[0\]\.messages\[0\]\.seq/);
    expect(() => parseArchive('x'.repeat(MAX_IMPORT_BYTES + 1))).toThrow(/at most 25\.0 MB/);
    expect(() => parseArchive('['.repeat(200_000))).toThrow(ImportError);
  });

  it('cleans what it takes: running → interrupted, no "act without asking" and nothing granted ahead, messages carry their conversation, unknown fields dropped', () => {
    const archive = parseArchive(JSON.stringify({
      format: ARCHIVE_FORMAT, version: 1, exportedAt: 'x',
      conversations: [{
        conversation: { id: 'c', title: 't', createdAt: 1, updatedAt: 1, status: 'running', actWithoutAsking: true, grantedAhead: [{ tool: 'click', site: 'https://shop.example' }], evil: 1 },
        messages: [{ id: 'm', conversationId: 'other', seq: 0, createdAt: 1, role: 'user', text: 'hi' }],
      }],
    }));
    const [entry] = archive.conversations;
    expect(entry!.conversation).toEqual({ id: 'c', title: 't', createdAt: 1, updatedAt: 1, status: 'interrupted' });
    expect(entry!.messages[0]).toEqual({ id: 'm', conversationId: 'c', seq: 0, createdAt: 1, role: 'user', text: 'hi' });
  });

  it('a file with "__proto__" keys everywhere (written as text: an object literal or JSON.stringify would drop them) pollutes nothing, in parsing or in the database', async () => {
    // What a hostile file carries: prototypes that would switch approvals off or mark anyone admin.
    const poison = '"__proto__":{"polluted":"yes","actWithoutAsking":true,"isAdmin":true}';
    const text = `{${poison},"format":"${ARCHIVE_FORMAT}","version":1,"exportedAt":"x","conversations":[{${poison},
      "conversation":{${poison},"id":"c","title":"t","createdAt":1,"updatedAt":1,"status":"idle","error":{${poison},"kind":"network","message":"m","said":{"key":"k","params":{"a":"b"}}}},
      "messages":[
        {${poison},"id":"m1","conversationId":"c","seq":0,"createdAt":1,"role":"user","text":"hi"},
        {${poison},"id":"m2","conversationId":"c","seq":1,"createdAt":2,"role":"assistant","text":"ok","status":"complete","toolCalls":[{${poison},"id":"t","name":"agent","input":{${poison},"prompt":"p"}}]},
        {${poison},"id":"m3","conversationId":"c","seq":2,"createdAt":3,"role":"tool","toolCallId":"t","toolName":"agent","input":{${poison}},"status":"done",
          "result":{${poison},"ok":true,"output":{${poison},"answer":{${poison}}}},"activity":{${poison},"steps":[{${poison}}]}}
      ]}]}`;
    // The keys really reach the parser (JSON.parse makes them own properties, not prototypes).
    expect(Object.hasOwn(JSON.parse(text) as object, '__proto__')).toBe(true);
    const clean = () => {
      const probe = {} as Record<string, unknown>;
      expect([probe.polluted, probe.actWithoutAsking, probe.isAdmin]).toEqual([undefined, undefined, undefined]);
    };
    /** No object anywhere in `value` has another prototype than a plain object's (or an array's). */
    const plain = (value: unknown, where = 'the archive'): void => {
      if (!value || typeof value !== 'object') return;
      const proto = Object.getPrototypeOf(value);
      expect(proto === Object.prototype || proto === Array.prototype || proto === null, `${where} has a forged prototype`).toBe(true);
      // Opaque JSON (tool input, output, activity) may keep "__proto__" as an own key: data, not a prototype.
      expect('polluted' in value && !Object.hasOwn(value, 'polluted'), `${where} inherits "polluted"`).toBe(false);
      for (const [key, inner] of Object.entries(value)) plain(inner, `${where}.${key}`);
    };

    const archive = parseArchive(text);
    clean();
    plain(archive);
    const [entry] = archive.conversations;
    expect(entry!.conversation.actWithoutAsking).toBeUndefined();
    expect(entry!.conversation).toEqual({ id: 'c', title: 't', createdAt: 1, updatedAt: 1, status: 'idle', error: { kind: 'network', message: 'm', said: { key: 'k', params: { a: 'b' } } } });
    expect(entry!.messages[0]).toEqual({ id: 'm1', conversationId: 'c', seq: 0, createdAt: 1, role: 'user', text: 'hi' });
    // Translatable words take only their own two fields: one more is refused, "__proto__" too.
    expect(() => parseArchive(text.replace('"said":{"key":"k"', `"said":{${poison},"key":"k"`))).toThrow(/error\.said/);
    clean();

    // Written and read back: still no prototype came in with the data.
    const db = freshDb();
    const store = new ConversationStore(db);
    await importArchive(db, archive);
    clean();
    plain(await store.getOrThrow('c'), 'the stored conversation');
    plain(await store.messages('c'), 'the stored messages');
    expect((await store.getOrThrow('c')).actWithoutAsking).toBeUndefined();
    plain(await exportConversations(store), 'the export');
    clean();
  });

  it('keeps translatable words (a run error worded in layers, a notice) and refuses malformed ones', () => {
    const error = { kind: 'bad_request', message: 'The provider settings are not usable: …', said: { key: 'errors.provider.unusable', params: { reason: { key: 'errors.settings.tokenCount', params: { what: { key: 'provider.numCtx' }, min: '256', max: '10,000,000' } } } } };
    const notice = { id: 'n', conversationId: 'c', seq: 0, createdAt: 1, role: 'assistant', text: '*x*', status: 'complete', toolCalls: [], notice: 'context', said: { key: 'notices.summarized', params: { max: 4096 } } };
    const file = (conversationError: unknown, message: unknown) => JSON.stringify({
      format: ARCHIVE_FORMAT, version: 1, exportedAt: 'x',
      conversations: [{ conversation: { id: 'c', title: 't', createdAt: 1, updatedAt: 1, status: 'error', error: conversationError }, messages: [message] }],
    });
    const [entry] = parseArchive(file(error, notice)).conversations;
    expect(entry!.conversation.error).toEqual(error);
    expect(entry!.messages[0]).toEqual(notice);
    let deep: Record<string, unknown> = { key: 'k' };
    for (let i = 0; i < 8; i++) deep = { key: 'k', params: { v: deep } };
    expect(() => parseArchive(file({ ...error, said: deep }, notice))).toThrow(/conversations\[0\]\.conversation\.error\.said/);
    expect(() => parseArchive(file(error, { ...notice, said: { key: 'k', params: { v: ['list'] } } }))).toThrow(/messages\[0\]\.said/);
    expect(() => parseArchive(file(error, { ...notice, said: { key: 'k', onclick: 'x' } }))).toThrow(ImportError);
  });

  it('imports all or nothing: a message id taken by another conversation refuses the whole file; repeated ids are refused', async () => {
    const db = freshDb();
    const store = new ConversationStore(db);
    const here = await seed(store);
    const taken = (await store.messages(here.id))[0]!.id;
    const entry = (id: string, messageId: string) => ({ conversation: { id, title: id, createdAt: 1, updatedAt: 1, status: 'idle' }, messages: [{ id: messageId, conversationId: id, seq: 0, createdAt: 1, role: 'user', text: 'x' }] });
    const file = (entries: unknown[]) => JSON.stringify({ format: ARCHIVE_FORMAT, version: 1, exportedAt: 'x', conversations: entries });
    await expect(importArchive(db, parseArchive(file([entry('a', 'a1'), entry('b', taken)])))).rejects.toThrow(/already here.*nothing was imported/);
    expect(await db.conversations.count()).toBe(1);
    expect(() => parseArchive(file([entry('a', 'a1'), entry('a', 'a2')]))).toThrow(/repeats the id a/);
    expect(() => parseArchive(file([entry('a', 'a1'), entry('b', 'a1')]))).toThrow(/repeats the message id a1/);
  });

  it('Markdown keeps answers, tool calls, results and activity, with fences that outlast backticks in the content', async () => {
    const store = new ConversationStore(freshDb());
    const c = await seed(store, 'A `tricky` title\nwith a line break');
    await store.append({ role: 'user', conversationId: c.id, text: '```js\nalert(1)\n```' });
    const md = archiveToMarkdown(await exportConversations(store));
    expect(md).toMatch(/^# A `tricky` title with a line break/);
    expect(md).toContain('## Sidequest (10 tokens in, 5 out)');
    expect(md).toContain('### Tool `agent` — done');
    expect(md).toContain('"answer": "two"');
    expect(md).toContain('Activity:');
    expect(exportFileName('Ünïcode / <script> title!', 'md', new Date('2026-01-02T00:00:00Z'))).toBe('sidequest-unicode-script-title-2026-01-02.md');
  });

  it('search finds conversations by title and by message text, most recent first', async () => {
    const store = new ConversationStore(freshDb());
    const a = await seed(store, 'Holiday plans');
    const b = await seed(store, 'Work');
    await store.append({ role: 'user', conversationId: b.id, text: 'Book the holiday flights' });
    expect(await store.search('HOLIDAY')).toEqual([b.id, a.id]);
    expect(await store.search('two tabs')).toHaveLength(2);
    expect(await store.search('nothing like this')).toEqual([]);
  });

  it('clearDatabase empties every table', async () => {
    const db = freshDb();
    await seed(new ConversationStore(db));
    await db.secrets.put({ key: 'provider.apiKey', value: 'sk' });
    await db.pluginData.put({ key: 'web/search', value: {} });
    await db.permissions.put({ tool: 't', site: '', decision: 'allow', at: 1 });
    await clearDatabase(db);
    for (const table of db.tables) expect(await table.count()).toBe(0);
  });
});

describe('traces', () => {
  it('redacts credential headers, key query parameters and the key itself wherever it appears', () => {
    expect(redactHeaders({ Authorization: 'Bearer sk-1', 'x-api-key': 'a', 'x-goog-api-key': 'b', 'content-type': 'application/json' })).toEqual({
      authorization: REDACTED, 'x-api-key': REDACTED, 'x-goog-api-key': REDACTED, 'content-type': 'application/json',
    });
    expect(redactUrl('https://g.example/v1/models/x:stream?alt=sse&key=AIza123')).toBe('https://g.example/v1/models/x:stream?alt=sse&key=%5Bredacted%5D');
    const trace = scrubSecrets({ request: { body: '{"api_key":"sk-secret-1"}', url: 'u' } }, ['sk-secret-1', undefined]);
    expect(trace.request.body).toBe(`{"api_key":"${REDACTED}"}`);
    const text = traceToText({ messageId: 'm', conversationId: 'c', at: 1, attempts: 1, request: { method: 'POST', url: 'u', headers: { a: 'b' }, body: '{"x":1}' }, response: { status: 200, headers: {}, body: 'data: 1' } } satisfies StepTrace);
    expect(text).toContain('POST u\na: b\n\n{\n  "x": 1\n}');
    expect(text).toContain('HTTP 200');
  });

  it('the cost estimate uses the profile prices per million tokens', () => {
    expect(withCost({ inputTokens: 1_000_000, outputTokens: 500_000 }, { inputPerMTok: 2, outputPerMTok: 8 })).toEqual({ inputTokens: 1_000_000, outputTokens: 500_000, costUsd: 6 });
    expect(withCost({ inputTokens: 3 }, undefined)).toEqual({ inputTokens: 3 });
  });
});

describe('the run token budget and traces in the loop', () => {
  let server: Awaited<ReturnType<typeof startModelServer>>;
  beforeAll(async () => {
    server = await startModelServer({ apiKey: 'sk-budget-key' });
  });
  afterAll(() => server.close());

  it('stops the run before the next request once the budget is reached, with status "budget"; Continue runs on; each step keeps a redacted trace', async () => {
    const db = freshDb();
    const store = new ConversationStore(db);
    const registry = new ToolRegistry(interpretedValidators);
    registry.register({
      id: 'test', name: 'Test', description: 'Test tools', source: 'builtin',
      tools: [defineTool<Record<string, never>>({ name: 'ping', description: 'Ping.', annotations: { readOnly: true, destructive: false, openWorld: false }, inputSchema: { type: 'object', properties: {} }, execute: () => 'pong' })],
    });
    let budget: number | undefined = 20;
    const runner = new AgentRunner({
      store,
      registry,
      getClient: async () => createOpenAICompatibleClient({ baseUrl: server.url, model: 'm', apiKey: 'sk-budget-key' }),
      getMaxSteps: async () => 10,
      getRunBudget: async () => budget,
      keepTraces: true,
      events: { conversation: () => undefined, message: () => undefined, delta: () => undefined },
    });
    server.reset();
    const ping = { toolCalls: [{ name: 'ping', arguments: {} }] };
    server.queue([ping, ping, ping, { text: 'done' }]);
    const c = await store.create();
    await runner.send(c.id, 'go');
    await runner.settled(c.id);
    expect(await store.get(c.id)).toMatchObject({ status: 'budget', budget: { used: 30, limit: 20 } });
    expect(server.requests).toHaveLength(2);

    budget = 1000;
    await runner.resume(c.id);
    await runner.settled(c.id);
    const after = await store.get(c.id);
    expect(after!.status).toBe('idle');
    expect(after!.budget).toBeUndefined();
    expect(server.requests).toHaveLength(4);

    const answers = (await store.messages(c.id)).filter((m): m is Extract<StoredMessage, { role: 'assistant' }> => m.role === 'assistant');
    expect(answers.every((a) => a.usage?.inputTokens === 10 && a.usage.outputTokens === 5)).toBe(true);
    await new Promise((r) => setTimeout(r, 50));
    const trace = await db.traces.get(answers.at(-1)!.id);
    expect(trace).toMatchObject({ conversationId: c.id, attempts: 1, request: { method: 'POST' }, response: { status: 200 } });
    expect(trace!.request.headers.authorization).toBe(REDACTED);
    expect(JSON.stringify(trace)).not.toContain('sk-budget-key');
    expect(trace!.response!.body).toContain('data: [DONE]');
    // Deleting the conversation deletes its traces.
    await store.delete(c.id);
    expect(await db.traces.count()).toBe(0);
  });
});

describe('tools\' model requests count against the run budget', () => {
  let server: Awaited<ReturnType<typeof startModelServer>>;
  beforeAll(async () => {
    server = await startModelServer();
  });
  afterAll(() => server.close());

  it('a tool using a metered client (a sub-agent) adds its tokens; past the budget its requests are refused', async () => {
    const store = new ConversationStore(freshDb());
    const registry = new ToolRegistry(interpretedValidators);
    const client = () => createOpenAICompatibleClient({ baseUrl: server.url, model: 'm' });
    const outcomes: string[] = [];
    registry.register({
      id: 'test', name: 'Test', description: 'Test tools', source: 'builtin',
      tools: [defineTool<Record<string, never>>({
        name: 'think', description: 'Think.', annotations: { readOnly: true, destructive: false, openWorld: false }, inputSchema: { type: 'object', properties: {} },
        async execute(_input, { conversationId }) {
          const metered = runner.metered(conversationId, client());
          for (let i = 0; i < 2; i++) {
            try {
              for await (const _event of metered.stream({ prompt: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }], tools: [], signal: new AbortController().signal })) void _event;
              outcomes.push('answered');
            } catch (error) {
              outcomes.push((error as Error).message);
            }
          }
          return 'thought';
        },
      })],
    });
    const runner = new AgentRunner({
      store, registry, getClient: async () => client(), getMaxSteps: async () => 10, getRunBudget: async () => 20,
      events: { conversation: () => undefined, message: () => undefined, delta: () => undefined },
    });
    server.reset();
    server.queue([{ toolCalls: [{ name: 'think', arguments: {} }] }]);
    const c = await store.create();
    await runner.send(c.id, 'go');
    await runner.settled(c.id);
    // The run's answer (15) and the tool's first request (15) reach 20: the tool's second request and the run's next step are refused.
    expect(outcomes).toEqual(['answered', expect.stringMatching(/reached its token budget \(30 of 20 tokens\)/)]);
    expect(await store.get(c.id)).toMatchObject({ status: 'budget', budget: { used: 30, limit: 20 } });
    expect(server.requests).toHaveLength(2);
  });
});

describe('the settings file', () => {
  it('exports without keys unless asked, and imports only a whole valid file', async () => {
    const db = freshDb();
    await db.secrets.bulkPut([{ key: 'provider.apiKey', value: 'sk-1' }, { key: 'web.test.localOrigins', value: '["http://127.0.0.1:1"]' }]);
    await db.pluginData.bulkPut([{ key: 'core/pluginSwitches', value: { scripting: false } }, { key: 'web/test.endpoints', value: 'x' }]);
    await agentSettings.setValue({ maxSteps: 9, runTokenBudget: 5000 });
    const plain = await exportSettingsFile(db, false);
    expect(plain.keys).toBeUndefined();
    expect(plain.limits).toEqual({ maxSteps: 9, runTokenBudget: 5000 });
    expect(plain.pluginData).toEqual([{ key: 'core/pluginSwitches', value: { scripting: false } }]);
    const withKeys = await exportSettingsFile(db, true);
    expect(withKeys.keys).toEqual([{ key: 'provider.apiKey', value: 'sk-1' }]);

    const target = freshDb();
    await agentSettings.setValue({ maxSteps: 25 });
    const broken = { ...withKeys, limits: { maxSteps: 0 } };
    await expect(importSettingsFile(target, JSON.stringify(broken))).rejects.toThrow(/not valid: limits\.maxSteps/);
    expect(await target.secrets.count()).toBe(0);
    expect((await agentSettings.getValue()).maxSteps).toBe(25);
    // A file cannot slip in a test-only entry.
    const sneaky = { ...withKeys, keys: [...withKeys.keys!, { key: 'web.test.localOrigins', value: '["http://127.0.0.1:2"]' }] };
    expect((await importSettingsFile(target, JSON.stringify(sneaky))).map(english)).toContain('1 API key');
    expect(await target.secrets.toArray()).toEqual([{ key: 'provider.apiKey', value: 'sk-1' }]);
    expect(await agentSettings.getValue()).toEqual({ maxSteps: 9, runTokenBudget: 5000 });
    expect((await providerSettingsStore(target).getValue()).profiles).toHaveLength(1);
    await expect(importSettingsFile(target, '{"format":"sidequest-conversations"}')).rejects.toThrow(/not a Sidequest settings file/);
  });
});

export type { Archive };
