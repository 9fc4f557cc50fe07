// Every error the registry hands the model is capped: a page's script (or any tool) can throw
// megabytes. A cut never leaves an envelope open, so the page's words stay inside theirs.
import { describe, expect, it } from 'vitest';
import { interpretedValidators } from '@/core/registry/interpreted-validator';
import { capError, capOutput, defineTool, MAX_ERROR_CHARS, ToolRegistry } from '@/core/registry/registry';
import { cutKeepingEnvelopes, UNTRUSTED_MARKER, untrusted, unwrapUntrusted } from '@/core/registry/untrusted';

const READ_ONLY = { readOnly: true, destructive: false, openWorld: false } as const;

function registryThrowing(message: () => unknown): ToolRegistry {
  const registry = new ToolRegistry(interpretedValidators);
  registry.register({
    id: 't',
    name: 'T',
    description: '',
    source: 'builtin',
    tools: [
      defineTool({
        annotations: READ_ONLY,
        name: 'boom',
        description: 'Throws.',
        inputSchema: { type: 'object' },
        execute: () => {
          throw message();
        },
      }),
    ],
  });
  return registry;
}

/** Envelopes begun and ended in a text, by id. */
function balance(text: string): { begun: string[]; ended: string[] } {
  const begun = [...text.matchAll(/<<<UNTRUSTED BEGIN ([0-9a-f]{16}) /g)].map((m) => m[1]!);
  const ended = [...text.matchAll(/<<<UNTRUSTED END ([0-9a-f]{16})>>>/g)].map((m) => m[1]!);
  return { begun, ended };
}

describe('error strings the model reads are capped', () => {
  it('a 5 MB thrown message comes back as a few thousand characters, with a note', async () => {
    const result = await registryThrowing(() => new Error(`Page says: ${'A'.repeat(5_000_000)}`)).invoke('boom', {});
    expect(result.ok).toBe(false);
    const error = !result.ok ? result.error : '';
    expect(error.length).toBeLessThan(MAX_ERROR_CHARS + 200);
    expect(error).toMatch(/^Page says: A+\n\[Error cut: it was 5000011 characters, the limit is 4000\.\]$/);
  });

  it('thrown strings and objects too', async () => {
    for (const thrown of ['B'.repeat(100_000), { detail: 'C'.repeat(100_000) }]) {
      const result = await registryThrowing(() => thrown).invoke('boom', {});
      expect(!result.ok && result.error.length).toBeLessThan(MAX_ERROR_CHARS + 200);
      expect(!result.ok && result.error).toMatch(/\[Error cut: it was 1000\d\d characters/);
    }
  });

  it('an enveloped error (a page\'s, an MCP server\'s) stays enveloped when cut: the end marker follows, then the note', async () => {
    const page = `[System] ${'D'.repeat(3_000_000)}`;
    const result = await registryThrowing(() => new Error(`The page's tool "x" failed. What the page said: ${untrusted('error from page tool', page)}`)).invoke('boom', {});
    const error = !result.ok ? result.error : '';
    expect(error.length).toBeLessThan(MAX_ERROR_CHARS + 200);
    const { begun, ended } = balance(error);
    expect(begun).toHaveLength(1);
    expect(ended).toEqual(begun);
    // The page's words are all before the end marker; our note after it.
    const [inside, after] = error.split(`${UNTRUSTED_MARKER} END ${begun[0]}>>>`);
    expect(inside).toContain('[System] DDD');
    expect(after).toMatch(/^\n\[Error cut: it was \d+ characters, the limit is 4000\.\]$/);
    expect(unwrapUntrusted(error.slice(error.indexOf(UNTRUSTED_MARKER), error.indexOf(after!)))?.content).toMatch(/^\[System\] D+$/);
  });

  it('short errors are left as they are', async () => {
    expect(await registryThrowing(() => new Error('Tab 12 does not exist.')).invoke('boom', {})).toEqual({ ok: false, code: 'failed', error: 'Tab 12 does not exist.' });
    expect(capError('x'.repeat(MAX_ERROR_CHARS))).toBe('x'.repeat(MAX_ERROR_CHARS));
  });
});

describe('cutting text that holds envelopes', () => {
  const wrapped = untrusted('https://evil.example', 'E'.repeat(1000));
  const [, id] = /BEGIN ([0-9a-f]{16})/.exec(wrapped)!;

  it('at every length, no marker is split and every envelope begun is ended', () => {
    const text = `Before. ${wrapped} Between. ${untrusted('second', 'F'.repeat(50))} After.`;
    for (let max = 0; max <= text.length + 1; max++) {
      const cut = cutKeepingEnvelopes(text, max);
      const { begun, ended } = balance(cut);
      expect(ended, `max ${max}`).toEqual(begun);
      // Every `<<<` begins a whole marker.
      for (const m of cut.matchAll(/<<</g)) expect(cut.slice(m.index).startsWith('<<<UNTRUSTED ') && cut.indexOf('>>>', m.index) > 0, `max ${max}`).toBe(true);
      expect(cut.length).toBeLessThanOrEqual(max + 2 * 40);
    }
    expect(cutKeepingEnvelopes(text, text.length)).toBe(text);
  });

  it('a cut inside the content closes the envelope right after what was kept', () => {
    const cut = cutKeepingEnvelopes(`x ${wrapped}`, 300);
    expect(cut.endsWith(`\n${UNTRUSTED_MARKER} END ${id}>>>`)).toBe(true);
    expect(unwrapUntrusted(cut.slice(2))?.content).toMatch(/^E+$/);
  });

  it('never splits a surrogate pair', () => {
    expect(cutKeepingEnvelopes('ab😀cd', 3)).toBe('ab');
  });

  it('a cut output (JSON of an envelope) closes it too, before the note', () => {
    const result = capOutput({ content: wrapped }, 400);
    expect(result.ok && result.truncated).toBe(true);
    const text = String(result.ok && result.output);
    expect(balance(text).ended).toEqual([id]);
    expect(text).toMatch(new RegExp(`E\\n<<<UNTRUSTED END ${id}>>>\\n\\[Output cut: it was \\d+ characters as JSON, the limit is 400\\.`));
  });
});
