import { systemPrompt } from '@/core/agent/prompt';

describe('the system prompt names the interface language', () => {
  it('asks for answers in the user\'s language, and names the UI language when known', () => {
    const now = new Date('2026-03-01T12:00:00Z');
    expect(systemPrompt(now)).toContain("Answer in the user's language.");
    const hebrew = systemPrompt(now, 'he');
    expect(hebrew).toContain("The user's interface is in Hebrew (he).");
    expect(hebrew).toContain('when that is unclear, answer in Hebrew');
    expect(systemPrompt(now, 'zh-CN')).toContain('Simplified Chinese (zh-CN)');
  });
});
