import { describe, expect, it } from 'vitest';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import { openDb } from '@/core/storage/db';
import { migrateProviderSettingsV2 } from '@/core/storage/migrations/provider-profiles';
import { conversationModelsSchema, providerSettings, ProviderSecrets, providerSettingsStore, providerSettingsSchema } from '@/core/storage/settings';
import v1 from './fixtures/provider-settings-v1.json';

describe('local:provider v1 → v2 (provider profiles)', () => {
  it('turns the one endpoint into the default OpenAI-compatible profile', () => {
    expect(migrateProviderSettingsV2(v1.provider)).toEqual({
      activeId: 'default',
      profiles: [{ id: 'default', name: 'openrouter.ai', type: 'openai-compatible', baseUrl: 'https://openrouter.ai/api/v1', model: 'openai/gpt-4o-mini' }],
    });
  });

  it('gives values that fit the v2 schema', () => {
    expect(providerSettingsSchema().safeParse(migrateProviderSettingsV2(v1.provider)).success).toBe(true);
    expect(providerSettingsSchema().safeParse(providerSettings.fallback).success).toBe(true);
    expect(providerSettingsSchema().safeParse(v1.provider).success).toBe(false);
    expect(conversationModelsSchema().safeParse({ c1: { profileId: 'default', model: 'm' } }).success).toBe(true);
  });

  it('fills what a broken old value lacks', () => {
    expect(migrateProviderSettingsV2(null).profiles[0]).toMatchObject({ baseUrl: 'http://localhost:11434/v1', model: 'llama3.2', name: 'Ollama (OpenAI-compatible)' });
    expect(migrateProviderSettingsV2({ baseUrl: '', model: ' ' } as never).profiles[0]).toMatchObject({ model: 'llama3.2' });
  });

  it('runs through WXT storage on the stored v1 value, moves into IndexedDB, and the old key is the migrated profile key', async () => {
    await fakeBrowser.storage.local.set(v1);
    const db = openDb('test-migration-secrets');
    const settings = await providerSettingsStore(db).getValue();
    expect(settings.activeId).toBe('default');
    expect(settings.profiles[0]).toMatchObject({ type: 'openai-compatible', baseUrl: 'https://openrouter.ai/api/v1' });
    // Out of storage.local (content scripts can write it), value and version both; kept in the database.
    expect(await fakeBrowser.storage.local.get(['provider', 'provider$'])).toEqual({});
    expect((await db.pluginData.get('core/provider'))?.value).toEqual(settings);
    // A second store on the same database reads it back without storage.local.
    expect(await providerSettingsStore(db).getValue()).toEqual(settings);

    // Version 1 kept the key under "provider.apiKey": profile "default" still finds it.
    await db.secrets.put({ key: 'provider.apiKey', value: 'sk-old' });
    const secrets = new ProviderSecrets(db);
    expect(await secrets.getApiKey('default')).toBe('sk-old');
    expect(await secrets.getApiKey('other')).toBeUndefined();
    db.close();
  });

  it('moves a stored v2 value as it is, and a value written by a page into storage.local later is ignored', async () => {
    const v2 = { activeId: 'p2', profiles: [{ id: 'p2', name: 'Mine', type: 'anthropic', baseUrl: 'https://api.anthropic.com/v1', model: 'claude-x' }] };
    await fakeBrowser.storage.local.set({ provider: v2, provider$: { v: 2 } });
    const db = openDb('test-migration-v2');
    expect(await providerSettingsStore(db).getValue()).toEqual(v2);
    await fakeBrowser.storage.local.set({ provider: { activeId: 'evil', profiles: [{ id: 'evil', name: 'x', type: 'openai-compatible', baseUrl: 'https://evil.example/v1', model: 'm' }] }, provider$: { v: 2 } });
    expect(await providerSettingsStore(db).getValue()).toEqual(v2);
    db.close();
  });
});
