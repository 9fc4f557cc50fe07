// @vitest-environment happy-dom
import { enableAutoUnmount, mount } from '@vue/test-utils';
import { afterEach, beforeAll, describe, expect, test } from 'vitest';
import ChatMessage from '@/components/chat/ChatMessage.vue';
import { runEnds } from '@/components/chat/run-ends';
import { assistantMessage, userMessage, loadAnswerParts } from './fixtures';

enableAutoUnmount(afterEach);
beforeAll(loadAnswerParts);

const user = (id: string) => ({ ...userMessage('ask'), id });
const answer = (id: string, fields = {}) => assistantMessage({ id, text: id, ...fields });

describe('one Usage · Trace row per run', () => {
  test("a run's last answer ends it; notices do not; the run still going has no end yet", () => {
    const messages = [user('u1'), answer('a1'), answer('a2'), answer('n1', { notice: 'context' }), user('u2'), answer('b1'), answer('b2')];
    expect([...runEnds(messages, false)]).toEqual(['a2', 'b2']);
    expect([...runEnds(messages, true)]).toEqual(['a2']);
    expect([...runEnds([user('u1')], false)]).toEqual([]);
  });

  test("the run's last answer shows its row; another step's row is there for hover and focus, taking no room", () => {
    const end = mount(ChatMessage, { props: { message: answer('a2'), toolResults: new Map(), runActive: false, endsRun: true } });
    expect(end.get('.details').classes()).not.toContain('peek');
    const step = mount(ChatMessage, { props: { message: answer('a1'), toolResults: new Map(), runActive: false } });
    const details = step.get('.details');
    expect(details.classes()).toContain('peek');
    // Still in the tab order, by the same names.
    expect(step.findAll('.details button').map((b) => b.text())).toEqual(['Usage', 'Trace']);
  });

  test('an open panel keeps a step\'s row shown', async () => {
    const step = mount(ChatMessage, { props: { message: answer('a1'), toolResults: new Map(), runActive: false } });
    await step.get('.details button').trigger('click');
    expect(step.get('.details').classes()).not.toContain('peek');
    expect(step.find('dl.usage').exists()).toBe(true);
  });
});
