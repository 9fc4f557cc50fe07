import type { ProviderSettings } from '../provider-settings';

/** `local:provider` as version 1 stored it: one OpenAI-compatible endpoint. */
export interface ProviderSettingsV1 {
  baseUrl: string;
  model: string;
}

/** The id of the profile made from version 1 settings; its key stays where version 1 kept it. */
export const MIGRATED_PROFILE_ID = 'default';

/**
 * v1 → v2: the one endpoint becomes the first (and default) profile, OpenAI-compatible as it was.
 * Its API key needs no move: `ProviderSecrets` keeps the key of profile `default` under the
 * version 1 name.
 */
export function migrateProviderSettingsV2(old: ProviderSettingsV1 | null | undefined): ProviderSettings {
  const baseUrl = typeof old?.baseUrl === 'string' && old.baseUrl.trim() ? old.baseUrl.trim() : 'http://localhost:11434/v1';
  const model = typeof old?.model === 'string' && old.model.trim() ? old.model.trim() : 'llama3.2';
  return {
    activeId: MIGRATED_PROFILE_ID,
    profiles: [{ id: MIGRATED_PROFILE_ID, name: profileName(baseUrl), type: 'openai-compatible', baseUrl, model }],
  };
}

/** A name for the migrated profile from its address, so the list reads well. */
function profileName(baseUrl: string): string {
  try {
    const { hostname, port } = new URL(baseUrl);
    if (port === '11434') return 'Ollama (OpenAI-compatible)';
    if (port === '1234') return 'LM Studio';
    return hostname.replace(/^api\./, '');
  } catch {
    return 'My provider';
  }
}
