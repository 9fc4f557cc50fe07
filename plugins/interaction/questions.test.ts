import { afterEach, describe, expect, test, vi } from 'vitest';
import { ASK_TIMEOUT_MS, checkAnswer, QuestionDesk } from './questions';

afterEach(() => {
  vi.useRealTimers();
});

describe('ask_user questions', () => {
  test('no answer in 5 minutes gives {answer: null, reason: "timeout"} and closes the question', async () => {
    vi.useFakeTimers();
    const desk = new QuestionDesk();
    const closed: string[] = [];
    desk.onChange((c) => c.type === 'closed' && closed.push(c.reason));
    const pending = desk.ask({ question: 'Continue?' });
    expect(desk.list()).toHaveLength(1);
    expect(desk.list()[0]!.expiresAt - desk.list()[0]!.askedAt).toBe(ASK_TIMEOUT_MS);
    await vi.advanceTimersByTimeAsync(ASK_TIMEOUT_MS - 1);
    expect(desk.list()).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    await expect(pending).resolves.toEqual({ answer: null, reason: 'timeout' });
    expect(desk.list()).toEqual([]);
    expect(closed).toEqual(['timeout']);
  });

  test('the answer goes back; skip gives null with its reason', async () => {
    const desk = new QuestionDesk();
    const a = desk.ask({ question: 'Colour?', options: ['Red', 'Green'] });
    desk.answer(desk.list()[0]!.id, 'Green');
    await expect(a).resolves.toEqual({ answer: 'Green' });
    const b = desk.ask({ question: 'Name?' });
    desk.answer(desk.list()[0]!.id, null);
    await expect(b).resolves.toEqual({ answer: null, reason: 'skipped' });
    expect(() => desk.answer('gone', 'x')).toThrow(/no longer waiting/);
  });

  test('stopping the run withdraws the question', async () => {
    const desk = new QuestionDesk();
    const controller = new AbortController();
    const pending = desk.ask({ question: 'Still there?', conversationId: 'c1' }, controller.signal);
    controller.abort();
    await expect(pending).rejects.toThrow(/withdrawn/);
    expect(desk.list()).toEqual([]);
    const other = desk.ask({ question: 'And now?', conversationId: 'c2' });
    desk.withdraw('c2');
    await expect(other).rejects.toThrow(/withdrawn/);
  });

  test('answers must fit the question', () => {
    expect(checkAnswer({ multiple: false }, '  free text ')).toBe('free text');
    expect(() => checkAnswer({ multiple: false }, '   ')).toThrow(/empty/);
    expect(() => checkAnswer({ options: ['A', 'B'], multiple: false }, 'C')).toThrow(/one of the options/);
    expect(checkAnswer({ options: ['A', 'B', 'C'], multiple: true }, ['C', 'A'])).toEqual(['A', 'C']);
    expect(() => checkAnswer({ options: ['A', 'B'], multiple: true }, [])).toThrow(/at least one/);
  });

  test('bad questions are refused before they are shown', async () => {
    const desk = new QuestionDesk();
    await expect(desk.ask({ question: 'x', options: ['A', 'A'] })).rejects.toThrow(/same/);
    await expect(desk.ask({ question: 'x', multiple: true })).rejects.toThrow(/multiple only applies/);
    expect(desk.list()).toEqual([]);
  });
});
