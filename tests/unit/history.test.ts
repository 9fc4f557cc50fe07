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
});
