// Loop detection (core/agent/loop-guard.ts): the same call with the same arguments and the same
// result, or the same page read with no action in between, a third time stops the run with a
// notice the sidebar shows; the second time the model is told, once, after that call's result.
// The fake tools answer as the real ones do: the page's words (and a page's error) in the untrusted
// envelope, whose id is new on every call (core/registry/untrusted.ts), so "the same result" must be
// the same to the model, not the same bytes. Unit rules on the guard, then the real runner against
// the scripted model server.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LoopGuard, REPEAT_NOTICE, REREAD_NOTICE, sameForModel } from '@/core/agent/loop-guard';
import { AgentRunner } from '@/core/agent/runner';
import { createOpenAICompatibleClient } from '@/core/agent/providers/openai-compatible-client';
import { english } from '@/core/i18n/catalog';
import { defineTool, ToolRegistry } from '@/core/registry/registry';
import { interpretedValidators } from '@/core/registry/interpreted-validator';
import { untrusted } from '@/core/registry/untrusted';
import { ConversationStore } from '@/core/storage/conversations';
import { openDb, type ToolMessage } from '@/core/storage/db';
import { contentText, startModelServer } from '../model-server/server.mjs';
import { registerTestTools } from './helpers/test-tools';

const ok = (output: unknown) => ({ ok: true as const, output });
const seen = (name: string, input: unknown, over: { readsPage?: boolean; acting?: boolean; tab?: number } = {}) => ({ name, input, readsPage: false, acting: false, ...over });

/** An action's result as page-actions gives it: the page's title and what changed in envelopes (fresh ids each call). */
const acted = (changed = 'No visible change.') => ok({ tab_id: 4, url: 'https://shop.example/', title: untrusted('title of tab 4, written by its page', 'Shop'), changed, note: `What was done: ${untrusted("the page agent's note from tab 4", 'clicked button "Buy"')}` });
/** A page read as read_page gives it (fresh ids each call). */
const outline = (text = '- button "Buy" [ref=e1]') => ok({ tab_id: 5, url: 'https://shop.example/', title: untrusted('title of tab 5, written by its page', 'Shop'), nodes: 1, truncated: false, outline: untrusted('outline of tab 5 (https://shop.example/)', text) });
/** A refusal as the page agent's error comes back: our words, the page's in the envelope (fresh ids each call). */
const refused = (ref = 'e99') => ({ ok: false as const, code: 'failed' as const, error: `The click was not done in tab 4. ${untrusted("the page agent's report from tab 4", `Unknown reference ${ref}: call read_page again.`)}` });

describe('what the model reads as the same (sameForModel)', () => {
  it('envelope ids are taken out: two envelopes of the same words compare equal, other words do not', () => {
    const one = JSON.stringify(outline().output);
    const two = JSON.stringify(outline().output);
    expect(one).not.toBe(two);
    expect(sameForModel(one)).toBe(sameForModel(two));
    expect(sameForModel(one)).not.toBe(sameForModel(JSON.stringify(outline('- button "Sold out" [ref=e1]').output)));
    expect(sameForModel(one)).not.toContain(/BEGIN ([0-9a-f]{16})/.exec(one)![1]);
  });

  it('ids are numbered by first appearance, so which markers pair still counts', () => {
    const a = untrusted('a', 'x');
    const b = untrusted('b', 'x');
    expect(sameForModel(`${a} ${b}`)).toMatch(/BEGIN #1 [^]*END #1>>> <<<UNTRUSTED BEGIN #2 [^]*END #2>>>$/);
    // An END of another envelope is not the same text as an END of this one.
    const [, idA] = /BEGIN ([0-9a-f]{16})/.exec(a)!;
    const [, idB] = /BEGIN ([0-9a-f]{16})/.exec(b)!;
    expect(sameForModel(`<<<UNTRUSTED BEGIN ${idA} <<<UNTRUSTED END ${idA}`)).not.toBe(sameForModel(`<<<UNTRUSTED BEGIN ${idA} <<<UNTRUSTED END ${idB}`));
  });

  it('a blob URL (a new one for each read of the same file) loses its random part; its origin stays', () => {
    const read = (id: string) => JSON.stringify({ path: '/a.png', size: 9, blob_url: `blob:chrome-extension://abcdefghijklmnop/${id}` });
    expect(sameForModel(read('0f8e7a52-1c2d-4e5f-9a8b-7c6d5e4f3a21'))).toBe(sameForModel(read('d41c9b1e-8a7f-4c3b-b2a1-0e9f8d7c6b5a')));
    expect(sameForModel(read('0f8e7a52-1c2d-4e5f-9a8b-7c6d5e4f3a21'))).toContain('blob:chrome-extension://abcdefghijklmnop/#');
    expect(sameForModel('blob:moz-extension://5d1c/0f8e7a52-1c2d-4e5f-9a8b-7c6d5e4f3a21')).toBe('blob:moz-extension://5d1c/#');
  });

  it('element references stay: another reference is another result', () => {
    expect(sameForModel(JSON.stringify(outline('- button "Buy" [ref=e1]').output))).not.toBe(sameForModel(JSON.stringify(outline('- button "Buy" [ref=e2]').output)));
  });
});

describe('LoopGuard rules', () => {
  it('the same call with the same result: told on the second, stopped on the third (key order ignored)', () => {
    const guard = new LoopGuard();
    expect(guard.after(seen('click', { ref: 'e1', tab_id: 4 }), acted())).toEqual({});
    expect(guard.after(seen('click', { tab_id: 4, ref: 'e1' }), acted())).toEqual({ notice: REPEAT_NOTICE });
    const third = guard.after(seen('click', { ref: 'e1', tab_id: 4 }), acted());
    expect(third.stop).toMatchObject({ key: 'runStatus.loopCall', params: { tool: 'click', count: 3 } });
    expect(english(third.stop!)).toMatch(/same call \(click, with the same arguments and the same result\) 3 times/);
  });

  it('the same call that gets somewhere (another result each time) is no loop', () => {
    const guard = new LoopGuard();
    for (let i = 0; i < 10; i++) expect(guard.after(seen('scroll', { direction: 'down' }, { acting: true }), acted(untrusted('what changed in tab 4', `- paragraph "row ${i}"`)))).toEqual({});
  });

  it('a result that changes starts the count again', () => {
    const guard = new LoopGuard();
    const focused = (name: string) => acted(untrusted('what changed in tab 4', `- link "${name}" [focused]`));
    guard.after(seen('press_key', { key: 'Tab' }), focused('a'));
    guard.after(seen('press_key', { key: 'Tab' }), focused('a'));
    expect(guard.after(seen('press_key', { key: 'Tab' }), focused('b'))).toEqual({});
    expect(guard.after(seen('press_key', { key: 'Tab' }), focused('b'))).toEqual({ notice: REPEAT_NOTICE });
  });

  it("the same error three times stops (the page's words enveloped anew each time); a stop (aborted) does not count", () => {
    const guard = new LoopGuard();
    expect(guard.after(seen('click', { ref: 'e99' }), refused())).toEqual({});
    guard.after(seen('click', { ref: 'e99' }), { ok: false, code: 'aborted', error: 'stopped' });
    expect(guard.after(seen('click', { ref: 'e99' }), refused())).toEqual({ notice: REPEAT_NOTICE });
    expect(guard.after(seen('click', { ref: 'e99' }), refused()).stop).toMatchObject({ key: 'runStatus.loopCall', params: { tool: 'click', count: 3 } });
  });

  it('another error is another result', () => {
    const guard = new LoopGuard();
    guard.after(seen('click', { ref: 'e99' }), refused('e99'));
    guard.after(seen('click', { ref: 'e99' }), refused('e99'));
    expect(guard.after(seen('click', { ref: 'e99' }), refused('e98'))).toEqual({});
  });

  it('the same page read (any arguments) three times without acting stops; an action in between starts again', () => {
    const guard = new LoopGuard();
    expect(guard.after(seen('read_page', {}, { readsPage: true, tab: 5 }), outline())).toEqual({});
    expect(guard.after(seen('read_page', { tab_id: 5 }, { readsPage: true, tab: 5 }), outline())).toEqual({ notice: REREAD_NOTICE });
    guard.after(seen('hover', { ref: 'e1' }, { acting: true }), acted());
    expect(guard.after(seen('read_page', { max_length: 9000 }, { readsPage: true, tab: 5 }), outline())).toEqual({});
    expect(guard.after(seen('read_page', { max_length: 8000 }, { readsPage: true, tab: 5 }), outline())).toEqual({ notice: REREAD_NOTICE });
    const stop = guard.after(seen('read_page', { max_length: 7000 }, { readsPage: true, tab: 5 }), outline()).stop!;
    expect(stop).toMatchObject({ key: 'runStatus.loopRead', params: { tool: 'read_page', count: 3 } });
  });

  it('reads of another tab, or reads that differ, are not the same read', () => {
    const guard = new LoopGuard();
    for (let i = 0; i < 4; i++) expect(guard.after(seen('read_page', { i }, { readsPage: true, tab: i }), outline())).toEqual({});
    for (let i = 0; i < 4; i++) expect(guard.after(seen('read_page', { j: i }, { readsPage: true, tab: 9 }), outline(`- heading "Page ${i}"`))).toEqual({});
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
      description: 'Reads the page (an unchanged one: the same words, in a fresh envelope each time).',
      inputSchema: { type: 'object', properties: { depth: { type: 'integer' } }, additionalProperties: false },
      execute: () => ({ url: 'https://shop.example/', title: untrusted('title of tab 5, written by its page', 'Shop'), outline: untrusted('outline of tab 5 (https://shop.example/)', '- button "Buy" [ref=e1]') }),
    }),
    defineTool({
      annotations: { readOnly: false, destructive: false, openWorld: false },
      name: 'poke',
      description: 'Does something; answers the same each time (the page\'s words in a fresh envelope).',
      inputSchema: { type: 'object', properties: { what: { type: 'string' } }, additionalProperties: false },
      execute: () => `Poked. ${untrusted('what changed in tab 5', 'no visible change')}`,
    }),
    defineTool({
      annotations: { readOnly: false, destructive: false, openWorld: false },
      name: 'press',
      description: 'Fails the same way each time: the page\'s refusal in a fresh envelope.',
      inputSchema: { type: 'object', properties: { ref: { type: 'string' } }, additionalProperties: false },
      execute: ({ ref }: { ref?: string }) => {
        throw new Error(`The press was not done in tab 5. ${untrusted("the page agent's report from tab 5", `Unknown reference ${ref}: call read_page again.`)}`);
      },
    }),
    defineTool({
      annotations: { readOnly: false, destructive: false, openWorld: false },
      name: 'step',
      description: 'Moves on: another answer each time.',
      inputSchema: { type: 'object', additionalProperties: false },
      execute: () => untrusted('what changed in tab 5', `now at ${++counter}`),
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
    expect(tools[1]!.result).toMatchObject({ ok: true, notice: REPEAT_NOTICE });
    // Each result came in its own envelope: not the same bytes, the same to the model.
    expect(tools[0]!.result).not.toEqual({ ...tools[1]!.result, notice: undefined });
    // The tool's own output is kept as it was (the UI shows it); only the model reads the line.
    expect(tools[0]!.result).toEqual({ ok: true, output: expect.stringMatching(/^Poked\. <<<UNTRUSTED BEGIN [0-9a-f]{16} [^]*\nno visible change\n<<<UNTRUSTED END [0-9a-f]{16}>>>$/) });
  });

  it('the same failing call three times (the same error, enveloped anew each time) stops the run', async () => {
    const ctx = setup();
    server.setScript(() => ({ toolCalls: [{ name: 'press', arguments: { ref: 'e99' } }] }));
    const { conversation, messages } = await run(ctx, 'Press it');
    expect(conversation.status).toBe('loop');
    expect(conversation.loop).toMatchObject({ key: 'runStatus.loopCall', params: { tool: 'press', count: 3 } });
    const tools = messages.filter((m): m is ToolMessage => m.role === 'tool');
    expect(tools.map((t) => t.result?.ok)).toEqual([false, false, false]);
    expect(new Set(tools.map((t) => (t.result as { error: string }).error)).size).toBe(3);
    expect(lastToolText(2)).toContain(REPEAT_NOTICE);
  });

  it('an object result gets the line beside it; the page read rule stops re-reads with other arguments', async () => {
    const ctx = setup();
    let n = 0;
    server.setScript(() => ({ toolCalls: [{ name: 'look', arguments: { depth: ++n } }] }));
    const { conversation } = await run(ctx, 'Read it');
    expect(conversation.status).toBe('loop');
    expect(conversation.loop).toMatchObject({ key: 'runStatus.loopRead', params: { tool: 'look', count: 3 } });
    const told = JSON.parse(lastToolText(2));
    expect(told).toEqual({ result: { url: 'https://shop.example/', title: expect.any(String), outline: expect.stringContaining('\n- button "Buy" [ref=e1]\n<<<UNTRUSTED END ') }, notice: REREAD_NOTICE });
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
