// @vitest-environment happy-dom
import { mount } from '@vue/test-utils';
import { afterEach, describe, expect, test } from 'vitest';
import ChatMessageDetails from '@/components/chat/ChatMessageDetails.vue';
import ChatRunStatus from '@/components/chat/ChatRunStatus.vue';
import { RUN_USAGE } from '@/components/chat/run-usage';
import type { Usage } from '@/core/agent/provider';
import type { RunUsage } from '@/stores/chat';
import { setLocale } from '@/core/ui/i18n';
import { assistantMessage, conversation } from './fixtures';

afterEach(() => setLocale('en'));

async function usage(run: { answers: number; inputTokens: number; outputTokens: number; costUsd?: number }, costUsd?: number) {
  const wrapper = mount(ChatMessageDetails, {
    props: { message: assistantMessage({ usage: { inputTokens: 1234, outputTokens: 5, costUsd } }) },
    global: { provide: { [RUN_USAGE as symbol]: () => run } },
  });
  await wrapper.findAll('button')[0]!.trigger('click');
  return wrapper.findAll('dd').map((d) => d.text());
}

describe('ChatMessageDetails and ChatRunStatus in every language', () => {
  test('English is word for word what it was: tokens, answers, dollars', async () => {
    expect(await usage({ answers: 4, inputTokens: 40, outputTokens: 20, costUsd: 0.5 }, 0.0012)).toEqual([
      '1,234 tokens in · 5 out · ≈ $0.0012',
      '4 answers · 40 tokens in · 20 out · ≈ $0.5000',
    ]);
    expect((await usage({ answers: 1, inputTokens: 1, outputTokens: 1 }))[1]).toBe('1 answer · 1 tokens in · 1 out');
  });

  test('the prompt cache: tokens read from it and written to it, for the answer and the run', async () => {
    const lines = async (usage: Usage, run: RunUsage) => {
      const wrapper = mount(ChatMessageDetails, {
        props: { message: assistantMessage({ usage }) },
        global: { provide: { [RUN_USAGE as symbol]: () => run } },
      });
      await wrapper.findAll('button')[0]!.trigger('click');
      return wrapper.findAll('dd').map((d) => d.text());
    };
    expect(await lines({ inputTokens: 1234, outputTokens: 5, cachedInputTokens: 1000 }, { answers: 2, inputTokens: 2000, outputTokens: 9, cachedInputTokens: 1000, cacheWriteTokens: 900 })).toEqual([
      '1,234 tokens in (1,000 cached) · 5 out',
      '2 answers · 2,000 tokens in (1,000 cached, 900 written to the cache) · 9 out',
    ]);
    expect((await lines({ inputTokens: 1100, outputTokens: 5, cacheWriteTokens: 1000, costUsd: 0.01 }, { answers: 1, inputTokens: 1, outputTokens: 1 }))[0]).toBe(
      '1,100 tokens in (1,000 written to the cache) · 5 out · ≈ $0.0100',
    );
    setLocale('zh-CN');
    expect((await lines({ inputTokens: 1234, outputTokens: 5, cachedInputTokens: 1000 }, { answers: 1, inputTokens: 1, outputTokens: 1 }))[0]).toBe(
      '输入 1,234 token（1,000 来自缓存）· 输出 5',
    );
  });

  test('Hebrew: the dual for two answers, the Usage button translated', async () => {
    setLocale('he');
    const [, run] = await usage({ answers: 2, inputTokens: 40, outputTokens: 20 });
    expect(run).toBe('שתי תשובות · 40 טוקנים נכנסים · 20 יוצאים');
    const budget = mount(ChatRunStatus, {
      props: { conversation: conversation({ status: 'budget', budget: { used: 30, limit: 20 } }), running: false },
    });
    expect(budget.get('.detail').text()).toContain('נוצלו 30 טוקנים מתוך 20');
    expect(budget.get('button').text()).toBe('המשך');
  });

  test('Chinese and Vietnamese have one form; Armenian keeps the noun singular', async () => {
    setLocale('zh-CN');
    expect((await usage({ answers: 3, inputTokens: 2, outputTokens: 1 }))[1]).toBe('3 条回答 · 输入 2 token · 输出 1');
    setLocale('vi');
    expect((await usage({ answers: 1, inputTokens: 2, outputTokens: 1 }))[1]).toBe('1 câu trả lời · 2 token vào · 1 ra');
    setLocale('hy');
    expect((await usage({ answers: 5, inputTokens: 2, outputTokens: 1 }))[1]).toBe('5 պատասխան · 2 թոքեն մուտք · 1 ելք');
  });
});
