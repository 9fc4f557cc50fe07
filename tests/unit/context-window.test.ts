import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { estimateTokens, limitFromError } from '@/core/agent/context-window';
import { AgentRunner } from '@/core/agent/runner';
import type { ProviderConfig } from '@/core/agent/provider';
import { createAgentClient, type NoticeKind } from '@/core/agent/clients';
import { ToolRegistry } from '@/core/registry/registry';
import { interpretedValidators } from '@/core/registry/interpreted-validator';
import { ConversationStore } from '@/core/storage/conversations';
import { openDb, type AssistantMessage, type ToolMessage } from '@/core/storage/db';
import { english } from '@/core/i18n/catalog';
import { contentText, startModelServer } from '../model-server/server.mjs';
import { readPageTool, registerTestTools } from './helpers/test-tools';


// A small model: a scripted OpenAI-compatible server with a 4,000-token window that answers 400
// beyond it (in OpenAI's words), and an agent run of 30 tool steps whose results are 20 KB each.

const LIMIT = 4000;
const STEPS = 30;
const RESULT_CHARS = 20_000;

let server: Awaited<ReturnType<typeof startModelServer>>;
beforeAll(async () => {
  server = await startModelServer();
});
afterAll(() => server.close());

function pageText(n: number): string {
  const line = `Page ${n} says: the quick brown fox jumps over the lazy dog, and the numbers ${n * 7} and ${n * 13} matter. `;
  return line.repeat(Math.ceil(RESULT_CHARS / line.length)).slice(0, RESULT_CHARS);
}

function scriptSmallModel() {
  const stats = { steps: 0, tooLong: 0, summaries: 0, largest: 0 };
  server.setScript((req) => {
    const tokens = Math.ceil(JSON.stringify({ m: req.body.messages, t: req.body.tools ?? [] }).length / 4);
    stats.largest = Math.max(stats.largest, tokens);
    if (tokens > LIMIT) {
      stats.tooLong++;
      return {
        status: 400,
        errorBody: { error: { message: `This model's maximum context length is ${LIMIT} tokens. However, your messages resulted in ${tokens} tokens.`, code: 'context_length_exceeded' } },
      };
    }
    if (!req.tools.length && /summarize/i.test(contentText(req.messages[0]))) {
      stats.summaries++;
      return { text: `The user asked to read the pages one by one; ${stats.steps} pages were read so far, each about foxes and numbers.` };
    }
    if (stats.steps < STEPS) {
      stats.steps++;
      return { text: `Reading page ${stats.steps}.`, toolCalls: [{ name: 'read_page', arguments: { n: stats.steps } }] };
    }
    return { text: `Done: read ${STEPS} pages.` };
  });
  return stats;
}

async function runLongConversation(config: ProviderConfig) {
  const store = new ConversationStore(openDb(`test-context-${Math.random()}`));
  const registry = new ToolRegistry(interpretedValidators);
  registerTestTools(registry, [
    readPageTool(pageText),
  ]);
  const notices: Array<[NoticeKind, string]> = [];
  const runner = new AgentRunner({
    store,
    registry,
    getClient: async () => createAgentClient(config, (kind, words) => notices.push([kind, english(words)])),
    getMaxSteps: async () => STEPS + 5,
    events: { conversation() {}, message() {}, delta() {} },
  });
  const conversation = await store.create();
  await runner.send(conversation.id, 'Read the pages one by one, then tell me when you are done.');
  await runner.settled(conversation.id);
  return { conversation: (await store.get(conversation.id))!, messages: await store.messages(conversation.id), notices };
}

describe('the context window', () => {
  it('measures requests and reads limits out of provider errors', () => {
    expect(limitFromError("This model's maximum context length is 4000 tokens. However, your messages resulted in 5210 tokens.")).toBe(4000);
    expect(limitFromError('prompt is too long: 5210 tokens > 4000 maximum')).toBe(4000);
    expect(limitFromError('The input token count (5210) exceeds the maximum number of tokens allowed (4000).')).toBe(4000);
    expect(estimateTokens([{ role: 'system', content: 'x'.repeat(300) }])).toBeGreaterThan(100);
  });

  it('keeps a 30-step run with 20 KB results inside a 4,000-token window, and storage keeps every result whole', async () => {
    const stats = scriptSmallModel();
    const { conversation, messages, notices } = await runLongConversation({
      baseUrl: server.url,
      model: 'small-model',
      contextLength: LIMIT,
    });
    expect(conversation.error).toBeUndefined();
    expect(conversation.status).toBe('idle');
    expect(stats.steps).toBe(STEPS);
    expect(stats.tooLong).toBe(0);
    expect(stats.largest).toBeLessThanOrEqual(LIMIT);
    expect(stats.summaries).toBeGreaterThan(0);
    console.log(`[context window] ${JSON.stringify(stats)}, notices: ${notices.length}`);
    const results = messages.filter((m): m is ToolMessage => m.role === 'tool');
    expect(results).toHaveLength(STEPS);
    for (const r of results) expect(JSON.stringify(r.result).length).toBeGreaterThan(RESULT_CHARS);
    expect((messages.at(-1) as AssistantMessage).text).toBe(`Done: read ${STEPS} pages.`);
    expect(notices.map(([kind]) => kind)).toContain('context');
    expect(notices.some(([, text]) => /summarized/.test(text))).toBe(true);
  });

  it('learns the window from the provider when nothing says it, and still finishes', async () => {
    const stats = scriptSmallModel();
    const { conversation, messages } = await runLongConversation({ baseUrl: server.url, model: 'small-model' });
    expect(conversation.error).toBeUndefined();
    expect(conversation.status).toBe('idle');
    expect(stats.steps).toBe(STEPS);
    // Told once by a 400, then measured.
    expect(stats.tooLong).toBeLessThanOrEqual(2);
    expect((messages.at(-1) as AssistantMessage).text).toBe(`Done: read ${STEPS} pages.`);
    // The next run of the same model remembers it: no 400 at all.
    const again = scriptSmallModel();
    const next = await runLongConversation({ baseUrl: server.url, model: 'small-model' });
    expect(next.conversation.status).toBe('idle');
    expect(again.tooLong).toBe(0);
  });
});
