import { describe, expect, it } from 'vitest';
import { BadgeCounter } from '@/core/background/badge';

describe('toolbar badge', () => {
  it('shows the sum over its sources, and only when it changes', () => {
    const shown: number[] = [];
    const badge = new BadgeCounter(async (n) => void shown.push(n));
    badge.set('core:approvals', 1);
    badge.set('plugin:interaction', 2);
    badge.set('plugin:interaction', 2);
    badge.set('core:approvals', 0);
    badge.set('plugin:interaction', 0);
    expect(shown).toEqual([1, 3, 2, 0]);
    expect(badge.total()).toBe(0);
  });
});
