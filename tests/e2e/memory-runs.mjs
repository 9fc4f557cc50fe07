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
 * What each list_tabs and read_page of a run asks for, in turn: each time another list or another
 * part of the page (the same read a third time with no action in between would end the run: the
 * loop guard, core/agent/loop-guard.ts). A variant that happens to give what an earlier one gave
 * makes it a second read at most: the model is told, the run goes on.
 */
const LIST_TABS = [{}, { url_pattern: 'alpha\\.html' }, { url_pattern: 'sidepanel' }, { url_pattern: 'no-tab-has-this-address' }, { url_pattern: 'alpha|sidepanel' }];
const READ_PAGE = [{}, { selector: 'h1' }, { selector: 'p' }, { selector: 'body' }];

/**
 * The scripted model of one run: STEPS requests, the first STEPS - 1 each asking for one tool
 * (list_tabs and read_page in turn: read_page reads the tab the user looks at), the last answering.
 */
export function runScript(req) {
  const lastUser = req.messages.findLastIndex((m) => m.role === 'user');
  const done = req.messages.slice(lastUser + 1).filter((m) => m.role === 'tool').length;
  if (done >= STEPS - 1) return { text: `Run done after ${done} tools.` };
  const turn = Math.floor(done / 2);
  return { toolCalls: [done % 2 === 0 ? { name: 'list_tabs', arguments: LIST_TABS[turn % LIST_TABS.length] } : { name: 'read_page', arguments: READ_PAGE[turn % READ_PAGE.length] }] };
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

