import { describe, expect, it } from 'vitest';
import { openDb } from '@/core/storage/db';
import { DEFAULT_BASE_URL, ProviderSecrets, providerSettingsStore, validateProviderProfile, validateProviderSettings } from '@/core/storage/settings';

describe('provider settings', () => {
  it('defaults to a local Ollama', async () => {
    expect(await providerSettingsStore(openDb('test-default-provider')).getValue()).toEqual({
      activeId: 'default',
      profiles: [expect.objectContaining({ id: 'default', type: 'openai-compatible', baseUrl: DEFAULT_BASE_URL, model: 'llama3.2' })],
    });
  });

  it('validates a profile: type, numbers of tokens, a name when none is given', () => {
    expect(validateProviderProfile({ type: 'anthropic', baseUrl: 'https://api.anthropic.com/v1', model: 'claude-x', contextLength: 200000 })).toEqual({
      id: undefined,
      name: 'Anthropic (api.anthropic.com)',
      type: 'anthropic',
      baseUrl: 'https://api.anthropic.com/v1',
      model: 'claude-x',
      contextLength: 200000,
      numCtx: undefined,
      toolMode: undefined,
    });
    expect(validateProviderProfile({ type: 'ollama', baseUrl: 'http://localhost:11434', model: 'qwen3', numCtx: 8192, toolMode: 'prompted' })).toMatchObject({
      numCtx: 8192,
      toolMode: 'prompted',
    });
    expect(() => validateProviderProfile({ type: 'ollama', baseUrl: 'http://localhost:11434', model: 'm', numCtx: 12.5 })).toThrow(/whole number of tokens/);
  });

  it('keeps each profile key apart', async () => {
    const db = openDb('test-secrets-profiles');
    const secrets = new ProviderSecrets(db);
    await secrets.setApiKey('sk-a', 'a');
    await secrets.setApiKey('sk-b', 'b');
    expect(await secrets.getApiKey('a')).toBe('sk-a');
    expect(await secrets.getApiKey('b')).toBe('sk-b');
    expect(await secrets.getApiKey()).toBeUndefined();
    db.close();
  });

  it('cleans and validates what the options page sends', () => {
    expect(validateProviderSettings({ baseUrl: ' https://api.openai.com/v1/ ', model: ' gpt-4o-mini ' })).toEqual({
      baseUrl: 'https://api.openai.com/v1',
      model: 'gpt-4o-mini',
    });
    expect(() => validateProviderSettings({ baseUrl: 'not a url', model: 'm' })).toThrow(/Base URL must be a full address/);
    expect(() => validateProviderSettings({ baseUrl: 'ftp://x/v1', model: 'm' })).toThrow(/http:\/\/ or https:\/\//);
    expect(() => validateProviderSettings({ baseUrl: 'http://x/v1', model: '  ' })).toThrow(/Model must not be empty/);
  });

  it('keeps the API key in IndexedDB, not in storage.local', async () => {
    const db = openDb('test-secrets');
    const secrets = new ProviderSecrets(db);
    expect(await secrets.getApiKey()).toBeUndefined();
    await secrets.setApiKey('  sk-123 ');
    expect(await secrets.getApiKey()).toBe('sk-123');
    const { fakeBrowser } = await import('wxt/testing');
    expect(JSON.stringify(await fakeBrowser.storage.local.get(null))).not.toContain('sk-123');
    await secrets.setApiKey('');
    expect(await secrets.getApiKey()).toBeUndefined();
    db.close();
  });
});
