// The scripted runs of the memory test (tests/e2e/memory.test.mjs) and bench (bench/memory.mjs):
// one run is a page opened, a new conversation, STEPS short scripted steps, the page closed.

export const STEPS = 10;

/** Calls the background's protocol from an extension page, as @webext-core/messaging frames it. */
export async function callBackground(page, type, data) {
  const reply = await page.evaluate(
    ([t, d]) => (globalThis.browser ?? globalThis.chrome).runtime.sendMessage({ id: 1, type: t, data: d, timestamp: Date.now() }),
    [type, data],
  );
  if (reply?.err) throw new Error(`${type}: ${reply.err.message}`);
  return reply?.res;
}

/**
 * The scripted model of one run: STEPS requests, the first STEPS - 1 each asking for one tool
 * (list_tabs and read_page in turn: read_page reads the tab the user looks at), the last answering.
 */
export function runScript(req) {
  const lastUser = req.messages.findLastIndex((m) => m.role === 'user');
  const done = req.messages.slice(lastUser + 1).filter((m) => m.role === 'tool').length;
  if (done >= STEPS - 1) return { text: `Run done after ${done} tools.` };
  return { toolCalls: [{ name: done % 2 === 0 ? 'list_tabs' : 'read_page', arguments: {} }] };
}

/**
 * One run as a person starts it: a page opens (the tab the agent reads), a new conversation gets a
 * message, the run ends, the page closes. Returns the conversation's end status and its tool results.
 */
export async function oneRun(h, ext, site, n) {
  const page = await h.newPage(site.url('/alpha.html'));
  try {
    const conversation = await callBackground(ext, 'createConversation');
    await callBackground(ext, 'sendMessage', { conversationId: conversation.id, text: `Run ${n}: look at my tabs and the page` });
    const deadline = Date.now() + 60_000;
    for (;;) {
      const got = await callBackground(ext, 'getConversation', { id: conversation.id });
      if (got.conversation.status !== 'running') {
        const results = got.messages.filter((m) => m.role === 'tool');
        return { status: got.conversation.status, tools: results.length, failed: results.filter((m) => !m.result?.ok).map((m) => `${m.toolName}: ${m.result?.error}`) };
      }
      if (Date.now() > deadline) throw new Error(`run ${n} did not end`);
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    await page.close();
  }
}

