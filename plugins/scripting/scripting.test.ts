import { describe, expect, test } from 'vitest';
import { toScriptResult, unscriptableReason } from './index';

describe('execute_script rules', () => {
  test('pages no extension may script are named', () => {
    expect(unscriptableReason('chrome://settings')).toMatch(/browser page/);
    expect(unscriptableReason('about:debugging')).toMatch(/browser page/);
    expect(unscriptableReason('https://chromewebstore.google.com/detail/x')).toMatch(/Web Store/);
    expect(unscriptableReason('https://addons.mozilla.org/en-US/firefox/')).toMatch(/add-ons/);
    expect(unscriptableReason('moz-extension://abc/page.html')).toMatch(/extension/);
    expect(unscriptableReason('https://example.com/')).toBeNull();
  });

  test('outcomes become results or errors worded for the model', () => {
    expect(toScriptResult({ ok: true, value: 3 }, { target: 'sandbox' })).toEqual({ target: 'sandbox', result: 3 });
    expect(toScriptResult({ ok: true }, { target: 'sandbox' })).toMatchObject({ result: null, note: expect.stringMatching(/no value/) });
    expect(() => toScriptResult({ ok: false, kind: 'csp', error: 'EvalError: x' }, { target: 'page' })).toThrow(/Content Security Policy/);
    expect(() => toScriptResult({ ok: false, kind: 'thrown', error: 'TypeError: y', logs: ['a'] }, { target: 'page' })).toThrow(/threw TypeError: y\nConsole output before the error:\na/);
  });
});
