// Loop detection (core/agent/loop-guard.ts): the same call with the same arguments and the same
// result, or the same page read with no action in between, a third time stops the run with a
// notice the sidebar shows; the second time the model is told, once, after that call's result.
// Unit rules on the guard, then the real runner against the scripted model server.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LoopGuard, REPEAT_NOTICE, REREAD_NOTICE } from '@/core/agent/loop-guard';
import { AgentRunner } from '@/core/agent/runner';
import { createOpenAICompatibleClient } from '@/core/agent/provider';
import { english } from '@/core/i18n/catalog';
import { defineTool, ToolRegistry } from '@/core/registry/registry';
import { interpretedValidators } from '@/core/registry/interpreted-validator';
import { ConversationStore } from '@/core/storage/conversations';
import { openDb, type ToolMessage } from '@/core/storage/db';
import { contentText, startModelServer } from '../model-server/server.mjs';
import { registerTestTools } from './helpers/test-tools';

const ok = (output: unknown) => ({ ok: true as const, output });
const seen = (name: string, input: unknown, over: { readsPage?: boolean; acting?: boolean; tab?: number } = {}) => ({ name, input, readsPage: false, acting: false, ...over });

describe('LoopGuard rules', () => {
  it('the same call with the same result: told on the second, stopped on the third (key order ignored)', () => {
    const guard = new LoopGuard();
    expect(guard.after(seen('click', { ref: 'e1', tab_id: 4 }), ok('no visible change'))).toEqual({});
    expect(guard.after(seen('click', { tab_id: 4, ref: 'e1' }), ok('no visible change'))).toEqual({ notice: REPEAT_NOTICE });
    const third = guard.after(seen('click', { ref: 'e1', tab_id: 4 }), ok('no visible change'));
    expect(third.stop).toMatchObject({ key: 'runStatus.loopCall', params: { tool: 'click', count: 3 } });
    expect(english(third.stop!)).toMatch(/same call \(click, with the same arguments and the same result\) 3 times/);
  });

  it('the same call that gets somewhere (another result each time) is no loop', () => {
    const guard = new LoopGuard();
    for (let i = 0; i < 10; i++) expect(guard.after(seen('scroll', { direction: 'down' }, { acting: true }), ok(`at ${i * 10}%`))).toEqual({});
  });

  it('a result that changes starts the count again', () => {
    const guard = new LoopGuard();
    guard.after(seen('press_key', { key: 'Tab' }), ok('a'));
    guard.after(seen('press_key', { key: 'Tab' }), ok('a'));
    expect(guard.after(seen('press_key', { key: 'Tab' }), ok('b'))).toEqual({});
    expect(guard.after(seen('press_key', { key: 'Tab' }), ok('b'))).toEqual({ notice: REPEAT_NOTICE });
  });

  it('the same error three times stops; a stop (aborted) does not count', () => {
    const guard = new LoopGuard();
    const stale = { ok: false as const, code: 'failed' as const, error: 'Stale reference e3: call read_page again.' };
    guard.after(seen('click', { ref: 'e3' }), stale);
    guard.after(seen('click', { ref: 'e3' }), { ok: false, code: 'aborted', error: 'stopped' });
    guard.after(seen('click', { ref: 'e3' }), stale);
    expect(guard.after(seen('click', { ref: 'e3' }), stale).stop).toBeDefined();
  });

  it('the same page read (any arguments) three times without acting stops; an action in between starts again', () => {
    const guard = new LoopGuard();
    const outline = ok({ url: 'https://shop.example/', text: '- button "Buy" [ref=e1]' });
    expect(guard.after(seen('read_page', {}, { readsPage: true, tab: 5 }), outline)).toEqual({});
    expect(guard.after(seen('read_page', { tab_id: 5 }, { readsPage: true, tab: 5 }), outline)).toEqual({ notice: REREAD_NOTICE });
    guard.after(seen('hover', { ref: 'e1' }, { acting: true }), ok('no visible change'));
    expect(guard.after(seen('read_page', { max_length: 9000 }, { readsPage: true, tab: 5 }), outline)).toEqual({});
    expect(guard.after(seen('read_page', { max_length: 8000 }, { readsPage: true, tab: 5 }), outline)).toEqual({ notice: REREAD_NOTICE });
    const stop = guard.after(seen('read_page', { max_length: 7000 }, { readsPage: true, tab: 5 }), outline).stop!;
    expect(stop).toMatchObject({ key: 'runStatus.loopRead', params: { tool: 'read_page', count: 3 } });
  });

  it('reads of another tab, or reads that differ, are not the same read', () => {
    const guard = new LoopGuard();
    for (let i = 0; i < 4; i++) expect(guard.after(seen('read_page', { i }, { readsPage: true, tab: i }), ok('same text'))).toEqual({});
    for (let i = 0; i < 4; i++) expect(guard.after(seen('read_page', { j: i }, { readsPage: true, tab: 9 }), ok(`text ${i}`))).toEqual({});
  });

  it('a read-only call that is not a page read (files, lists) only counts as the same call', () => {
    const guard = new LoopGuard();
    guard.after(seen('list_files', { a: 1 }), ok('x'));
    guard.after(seen('list_files', { a: 2 }), ok('x'));
    expect(guard.after(seen('list_files', { a: 3 }), ok('x'))).toEqual({});
  });
});

type Server = Awaited<ReturnType<typeof startModelServer>>;
let server: Server;
beforeAll(async () => {
  server = await startModelServer({ apiKey: 'sk-good' });
});
afterAll(() => server.close());
beforeEach(() => server.reset());

let dbCount = 0;
function setup() {
  const store = new ConversationStore(openDb(`test-loop-guard-${++dbCount}`));
  const registry = new ToolRegistry(interpretedValidators);
  let counter = 0;
  registerTestTools(registry, [
    defineTool({
      annotations: { readOnly: true, destructive: false, openWorld: false, pages: true },
      name: 'look',
      description: 'Reads the page.',
      inputSchema: { type: 'object', properties: { depth: { type: 'integer' } }, additionalProperties: false },
      execute: () => ({ url: 'https://shop.example/', outline: '- button "Buy" [ref=e1]' }),
    }),
    defineTool({
      annotations: { readOnly: false, destructive: false, openWorld: false },
      name: 'poke',
      description: 'Does something; answers the same each time.',
      inputSchema: { type: 'object', properties: { what: { type: 'string' } }, additionalProperties: false },
      execute: () => 'no visible change',
    }),
    defineTool({
      annotations: { readOnly: false, destructive: false, openWorld: false },
      name: 'step',
      description: 'Moves on: another answer each time.',
      inputSchema: { type: 'object', additionalProperties: false },
      execute: () => `now at ${++counter}`,
    }),
  ]);
  const runner = new AgentRunner({
    store,
    registry,
    getClient: async () => createOpenAICompatibleClient({ baseUrl: server.url, model: 'scripted-model', apiKey: 'sk-good' }),
    getMaxSteps: async () => 20,
    events: { conversation: () => {}, message: () => {}, delta: () => {} },
  });
  return { store, runner };
}

async function run(ctx: ReturnType<typeof setup>, text: string) {
  const conversation = await ctx.store.create();
  await ctx.runner.send(conversation.id, text);
  await ctx.runner.settled(conversation.id);
  return { id: conversation.id, conversation: (await ctx.store.get(conversation.id))!, messages: await ctx.store.messages(conversation.id) };
}

/** What the model was sent as the result of each tool call, request by request. */
const lastToolText = (request: number) => contentText(server.requests[request]!.messages.at(-1));

describe('loop detection in a run (scripted model server)', () => {
  it('the same call three times: the second result tells the model, the third stops the run with a notice', async () => {
    const ctx = setup();
    server.setScript(() => ({ toolCalls: [{ name: 'poke', arguments: { what: 'the button' } }] }));
    const { conversation, messages } = await run(ctx, 'Poke it');
    expect(conversation.status).toBe('loop');
    expect(english(conversation.loop!)).toMatch(/poke, with the same arguments and the same result\) 3 times/);
    const tools = messages.filter((m): m is ToolMessage => m.role === 'tool');
    expect(tools).toHaveLength(3);
    expect(server.requests).toHaveLength(3);
    // Told once: after the second call's result, not the first.
    expect(lastToolText(1)).not.toContain('Note from Sidequest');
    expect(lastToolText(2)).toContain('no visible change');
    expect(lastToolText(2)).toContain(REPEAT_NOTICE);
    expect(tools[1]!.result).toMatchObject({ ok: true, output: 'no visible change', notice: REPEAT_NOTICE });
    // The tool's own output is kept as it was (the UI shows it); only the model reads the line.
    expect(tools[0]!.result).toEqual({ ok: true, output: 'no visible change' });
  });

  it('an object result gets the line beside it; the page read rule stops re-reads with other arguments', async () => {
    const ctx = setup();
    let n = 0;
    server.setScript(() => ({ toolCalls: [{ name: 'look', arguments: { depth: ++n } }] }));
    const { conversation } = await run(ctx, 'Read it');
    expect(conversation.status).toBe('loop');
    expect(conversation.loop).toMatchObject({ key: 'runStatus.loopRead', params: { tool: 'look', count: 3 } });
    expect(JSON.parse(lastToolText(2))).toEqual({ result: { url: 'https://shop.example/', outline: '- button "Buy" [ref=e1]' }, notice: REREAD_NOTICE });
  });

  it('acting between reads, and calls that get somewhere, run on to the end', async () => {
    const ctx = setup();
    const script = ['look', 'poke', 'look', 'step', 'look', 'step', 'step', 'step'];
    let i = 0;
    server.setScript(() => (i < script.length ? { toolCalls: [{ name: script[i]!, arguments: script[i++] === 'poke' ? { what: 'x' } : {} }] } : { text: 'Done.' }));
    const { conversation, messages } = await run(ctx, 'Work');
    expect(conversation.status).toBe('idle');
    expect(messages.filter((m) => m.role === 'tool')).toHaveLength(script.length);
  });

  it('Continue after a loop stop starts a fresh run (the notice is cleared, the count starts again)', async () => {
    const ctx = setup();
    server.setScript(() => ({ toolCalls: [{ name: 'poke', arguments: {} }] }));
    const { id } = await run(ctx, 'Poke');
    expect((await ctx.store.get(id))!.status).toBe('loop');
    server.reset();
    server.queue([{ toolCalls: [{ name: 'poke', arguments: {} }] }, { text: 'I will stop poking.' }]);
    await ctx.runner.resume(id);
    await ctx.runner.settled(id);
    const after = (await ctx.store.get(id))!;
    expect(after.status).toBe('idle');
    expect(after.loop).toBeUndefined();
  });
});
