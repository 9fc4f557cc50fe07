import { describe, expect, it } from 'vitest';
import { fakeBrowser } from 'wxt/testing';
import { openDb } from '@/core/storage/db';
import { migrateProviderSettingsV2 } from '@/core/storage/migrations/provider-profiles';
import { conversationModelsSchema, ProviderSecrets, providerSettings, providerSettingsSchema } from '@/core/storage/settings';
import v1 from './fixtures/provider-settings-v1.json';

describe('local:provider v1 → v2 (provider profiles)', () => {
  it('turns the one endpoint into the default OpenAI-compatible profile', () => {
    expect(migrateProviderSettingsV2(v1.provider)).toEqual({
      activeId: 'default',
      profiles: [{ id: 'default', name: 'openrouter.ai', type: 'openai-compatible', baseUrl: 'https://openrouter.ai/api/v1', model: 'openai/gpt-4o-mini' }],
    });
  });

  it('gives values that fit the v2 schema', () => {
    expect(providerSettingsSchema.safeParse(migrateProviderSettingsV2(v1.provider)).success).toBe(true);
    expect(providerSettingsSchema.safeParse(providerSettings.fallback).success).toBe(true);
    expect(providerSettingsSchema.safeParse(v1.provider).success).toBe(false);
    expect(conversationModelsSchema.safeParse({ c1: { profileId: 'default', model: 'm' } }).success).toBe(true);
  });

  it('fills what a broken old value lacks', () => {
    expect(migrateProviderSettingsV2(null).profiles[0]).toMatchObject({ baseUrl: 'http://localhost:11434/v1', model: 'llama3.2', name: 'Ollama (OpenAI-compatible)' });
    expect(migrateProviderSettingsV2({ baseUrl: '', model: ' ' } as never).profiles[0]).toMatchObject({ model: 'llama3.2' });
  });

  it('runs through WXT storage on the stored v1 value, and the old key is the migrated profile key', async () => {
    await fakeBrowser.storage.local.set(v1);
    await providerSettings.migrate();
    const settings = await providerSettings.getValue();
    expect(settings.activeId).toBe('default');
    expect(settings.profiles[0]).toMatchObject({ type: 'openai-compatible', baseUrl: 'https://openrouter.ai/api/v1' });
    expect(await fakeBrowser.storage.local.get('provider$')).toEqual({ provider$: { v: 2 } });

    // Version 1 kept the key under "provider.apiKey": profile "default" still finds it.
    const db = openDb('test-migration-secrets');
    await db.secrets.put({ key: 'provider.apiKey', value: 'sk-old' });
    const secrets = new ProviderSecrets(db);
    expect(await secrets.getApiKey('default')).toBe('sk-old');
    expect(await secrets.getApiKey('other')).toBeUndefined();
    db.close();
  });
});
