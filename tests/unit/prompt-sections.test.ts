import { afterEach, describe, expect, it, vi } from 'vitest';
import { promptSections } from '@/core/agent/prompt';
import type { Conversation } from '@/core/storage/db';

const conversation = { id: 'c1', title: 'T', createdAt: 0, updatedAt: 0, status: 'idle' } as unknown as Conversation;

describe('plugins\' parts of the system prompt', () => {
  afterEach(() => vi.useRealTimers());

  it('keeps the sections in order, trimmed, and leaves out empty ones', async () => {
    const texts = await promptSections([() => '  first  ', () => undefined, async () => 'second', () => '   '], conversation);
    expect(texts).toEqual(['first', 'second']);
  });

  it('hands each section the conversation', async () => {
    const seen: string[] = [];
    await promptSections([(c) => void seen.push(c.id)], conversation);
    expect(seen).toEqual(['c1']);
  });

  it('leaves out a section that throws, or one that never answers, and keeps the others', async () => {
    vi.useFakeTimers();
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const pending = promptSections(
      [
        () => {
          throw new Error('broken');
        },
        () => new Promise<string>(() => undefined),
        () => 'kept',
      ],
      conversation,
    );
    await vi.advanceTimersByTimeAsync(2_001);
    expect(await pending).toEqual(['kept']);
    expect(warn).toHaveBeenCalledTimes(2);
    warn.mockRestore();
  });
});
