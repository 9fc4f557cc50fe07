import { describe, expect, it } from 'vitest';
import { toModelPrompt } from '@/core/agent/history';
import type { StoredMessage } from '@/core/storage/db';

const base = { conversationId: 'c', createdAt: 0 };

describe('toModelPrompt', () => {
  it('places each tool result right after the call, and answers missing ones', () => {
    const messages: StoredMessage[] = [
      { ...base, id: '1', seq: 0, role: 'user', text: 'hi' },
      {
        ...base, id: '2', seq: 1, role: 'assistant', text: 'Checking', status: 'complete',
        toolCalls: [{ id: 'a', name: 'list_tabs', input: {} }, { id: 'b', name: 'close_tab', input: { tab_id: 1 } }],
      },
      { ...base, id: '3', seq: 2, role: 'tool', toolCallId: 'a', toolName: 'list_tabs', input: {}, status: 'done', result: { ok: true, output: [1] } },
      { ...base, id: '4', seq: 3, role: 'user', text: 'and?' },
      { ...base, id: '5', seq: 4, role: 'assistant', text: '', status: 'error', toolCalls: [] },
    ];
    const out = toModelPrompt('sys', messages);
    expect(out.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'user']);
    const tool = out[3] as Extract<(typeof out)[number], { role: 'tool' }>;
    expect(tool.content).toEqual([
      { type: 'tool-result', toolCallId: 'a', toolName: 'list_tabs', output: { type: 'json', value: [1] } },
      { type: 'tool-result', toolCallId: 'b', toolName: 'close_tab', output: { type: 'error-text', value: expect.stringMatching(/did not run/) } },
    ]);
  });

  it('sends tool errors as error text', () => {
    const out = toModelPrompt('sys', [
      { ...base, id: '2', seq: 1, role: 'assistant', text: '', status: 'complete', toolCalls: [{ id: 'a', name: 't', input: {} }] },
      { ...base, id: '3', seq: 2, role: 'tool', toolCallId: 'a', toolName: 't', input: {}, status: 'error', result: { ok: false, code: 'failed', error: 'boom' } },
    ]);
    expect(out[2]).toMatchObject({ role: 'tool', content: [{ output: { type: 'error-text', value: 'boom' } }] });
  });

  it('goes on from the last prompt of a grown history, and sees whatever changed in it', () => {
    const history: StoredMessage[] = [{ ...base, id: 'u', seq: 0, role: 'user', text: 'Read them.' }];
    const step = (n: number, result = true) => {
      history.push({ ...base, id: `a${n}`, seq: 2 * n + 1, role: 'assistant', text: `step ${n}`, status: 'complete', toolCalls: [{ id: `c${n}`, name: 'read', input: { n } }] });
      if (result) history.push({ ...base, id: `t${n}`, seq: 2 * n + 2, role: 'tool', toolCallId: `c${n}`, toolName: 'read', input: { n }, status: 'done', result: { ok: true, output: { n } } });
    };
    const to = { type: 'openai-compatible', model: 'm' };
    // A fresh array is a fresh build: what the grown one must equal after every change.
    const same = (system = 'sys', model = to) => {
      const grown = toModelPrompt(system, history, model);
      expect(grown).toEqual(toModelPrompt(system, [...history], model));
      return grown;
    };
    for (let n = 1; n <= 5; n++) step(n);
    const first = same();
    step(6);
    const second = same();
    // The messages it had are handed out again, the same objects.
    for (let i = 0; i < first.length; i++) expect(second[i]).toBe(first[i]);
    expect(second).toHaveLength(first.length + 2);

    // Changed in place: an earlier answer's text, an earlier result.
    (history[3] as Extract<StoredMessage, { role: 'assistant' }>).text = 'edited';
    expect(JSON.stringify(same())).toContain('edited');
    (history[4] as Extract<StoredMessage, { role: 'tool' }>).result = { ok: false, code: 'failed', error: 'now an error' };
    expect(JSON.stringify(same())).toContain('now an error');
    // A message replaced by another, one taken away, the user's words changed.
    history[1] = { ...history[1]!, text: 'replaced' } as StoredMessage;
    expect(JSON.stringify(same())).toContain('replaced');
    history.pop();
    expect(JSON.stringify(same().at(-1))).toMatch(/did not run/);
    (history[0] as Extract<StoredMessage, { role: 'user' }>).text = 'Read them all.';
    expect(same()[1]).toMatchObject({ content: [{ text: 'Read them all.' }] });
    // A call's result arriving later, among the new messages: placed with its call.
    step(7, false);
    step(8);
    history.push({ ...base, id: 't7', seq: 99, role: 'tool', toolCallId: 'c7', toolName: 'read', input: {}, status: 'done', result: { ok: true, output: 'late result' } });
    const late = same();
    const call = late.findIndex((m) => m.role === 'assistant' && JSON.stringify(m).includes('"c7"'));
    expect(JSON.stringify(late[call + 1])).toContain('late result');
    // Another system prompt or model: built again.
    expect(same('another system')[0]).toEqual({ role: 'system', content: 'another system' });
    same('sys', { type: 'anthropic', model: 'other' });
  });
});
