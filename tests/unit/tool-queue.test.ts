import { describe, expect, it } from 'vitest';
import { ToolQueue } from '@/core/agent/tool-queue';

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('ToolQueue', () => {
  it('runs calls one by one in the order added; consecutive concurrent calls (sub-agents) together', async () => {
    const queue = new ToolQueue();
    const running = new Set<number>();
    const together: number[][] = [];
    [true, true, false, true, true, true].forEach((concurrent, index) =>
      queue.add(concurrent, async () => {
        running.add(index);
        together.push([...running]);
        await tick(5);
        running.delete(index);
      }),
    );
    await queue.settled();
    expect(together).toEqual([[0], [0, 1], [2], [3], [3, 4], [3, 4, 5]]);
  });

  it('starts a call added while another runs when that one ends, and one added to an idle queue at once', async () => {
    const queue = new ToolQueue();
    const log: string[] = [];
    queue.add(false, async () => {
      log.push('a starts');
      await tick(20);
      log.push('a ends');
    });
    await tick(5);
    queue.add(false, async () => void log.push('b runs'));
    await queue.settled();
    expect(log).toEqual(['a starts', 'a ends', 'b runs']);
    queue.add(false, async () => void log.push('c runs'));
    await Promise.resolve();
    expect(log.at(-1)).toBe('c runs');
  });

  it('a call that throws stops the ones after it; settled rejects with its error, and nothing is left unhandled', async () => {
    const queue = new ToolQueue();
    const ran: string[] = [];
    queue.add(false, async () => {
      ran.push('a');
      throw new Error('the database is gone');
    });
    queue.add(false, async () => void ran.push('b'));
    await tick(5);
    await expect(queue.settled()).rejects.toThrow('the database is gone');
    expect(ran).toEqual(['a']);
  });
});
