// @vitest-environment happy-dom
import { enableAutoUnmount, flushPromises, mount } from '@vue/test-utils';
import { createPinia, setActivePinia } from 'pinia';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import SettingsProvider from '@/components/settings/SettingsProvider.vue';
import { PROVIDERS } from '@/core/agent/providers/list';
import { english } from '@/core/i18n/catalog';
import type { ProviderProfileView, ProviderView } from '@/core/messaging/protocol';
import { useSettingsStore } from '@/stores/settings';

enableAutoUnmount(afterEach);

const WORK: ProviderProfileView = { id: 'work', name: 'Work', type: 'anthropic', baseUrl: 'https://api.anthropic.com/v1', model: 'claude-x', hasApiKey: true };
const HOME: ProviderProfileView = { id: 'home', name: 'Home', type: 'ollama', baseUrl: 'http://localhost:11434', model: 'llama3.2', numCtx: 8192, hasApiKey: false };

function view(profiles: ProviderProfileView[], activeId: string): ProviderView {
  const active = profiles.find((p) => p.id === activeId)!;
  return { ...active, activeId, profiles };
}

let store: ReturnType<typeof useSettingsStore>;

beforeEach(() => {
  setActivePinia(createPinia());
  store = useSettingsStore();
  store.provider = view([WORK, HOME], 'work');
});

const mountSection = async () => {
  const wrapper = mount(SettingsProvider, { attachTo: document.body });
  await flushPromises();
  return wrapper;
};
const value = (wrapper: Awaited<ReturnType<typeof mountSection>>, selector: string) => (wrapper.get(selector).element as HTMLInputElement).value;

describe('SettingsProvider', () => {
  test('the list shows the profiles, the default one marked; the form edits the default one', async () => {
    const wrapper = await mountSection();
    expect(wrapper.findAll('#profile option').map((o) => o.text())).toEqual(['Work (default)', 'Home', 'New profile…']);
    expect(value(wrapper, '#profile')).toBe('work');
    expect(value(wrapper, '#profile-name')).toBe('Work');
    expect(value(wrapper, '#provider-type')).toBe('anthropic');
    expect(wrapper.get('#base-url-hint').text()).toBe('https://api.anthropic.com/v1, or a proxy that speaks the Messages API.');
    expect(wrapper.get('#api-key').attributes('placeholder')).toBe('A key is saved. Type a new one to replace it.');
    expect(wrapper.find('#num-ctx').exists()).toBe(false);
    expect(wrapper.get('#context-length').attributes('placeholder')).toBe('200000');
  });

  test('types, presets and hints come from the provider list', async () => {
    const wrapper = await mountSection();
    expect(wrapper.findAll('#provider-type option').map((o) => o.text())).toEqual(PROVIDERS.map((p) => english(p.label)));
    const presets = wrapper.findAll('#preset option').map((o) => o.attributes('value'));
    expect(presets).toEqual(['', ...PROVIDERS.flatMap((p) => p.presets.map((preset) => preset.id))]);
    await wrapper.get('#preset').setValue('openrouter');
    expect(value(wrapper, '#provider-type')).toBe('openai-compatible');
    expect(value(wrapper, '#base-url')).toBe('https://openrouter.ai/api/v1');
    expect(value(wrapper, '#model')).toBe('openai/gpt-4o-mini');
    expect(wrapper.get('#base-url-hint').text()).toMatch(/ends in \/v1/);
    // A default address follows the type; Ollama's own fields show.
    await wrapper.get('#base-url').setValue('https://api.anthropic.com/v1');
    await wrapper.get('#provider-type').setValue('ollama');
    expect(value(wrapper, '#base-url')).toBe('http://localhost:11434');
    expect(wrapper.find('#num-ctx').exists()).toBe(true);
    expect(wrapper.get('#context-length').attributes('placeholder')).toBe('');
  });

  test('picking a profile fills the form; a new one starts from the defaults', async () => {
    const wrapper = await mountSection();
    await wrapper.get('#profile').setValue('home');
    await flushPromises();
    expect(value(wrapper, '#profile-name')).toBe('Home');
    expect(value(wrapper, '#num-ctx')).toBe('8192');
    expect(wrapper.get('#api-key').attributes('placeholder')).toBe('Not needed for a local Ollama');
    await wrapper.get('#profile').setValue('new');
    await flushPromises();
    expect(value(wrapper, '#profile-name')).toBe('');
    expect(value(wrapper, '#provider-type')).toBe('openai-compatible');
    expect(value(wrapper, '#base-url')).toBe('http://localhost:11434/v1');
  });

  test('a saved new profile becomes the one edited, and the form says so', async () => {
    const saved: ProviderProfileView = { id: 'p3', name: 'OpenRouter', type: 'openai-compatible', baseUrl: 'https://openrouter.ai/api/v1', model: 'm', hasApiKey: true };
    const save = vi.fn(async () => {
      store.provider = view([WORK, HOME, saved], 'p3');
    });
    store.saveProvider = save;
    const wrapper = await mountSection();
    await wrapper.get('#profile').setValue('new');
    await flushPromises();
    await wrapper.get('#profile-name').setValue('OpenRouter');
    await wrapper.get('#base-url').setValue('https://openrouter.ai/api/v1');
    await wrapper.get('#api-key').setValue('sk-1');
    await wrapper.get('#model').setValue('m');
    await wrapper.get('form').trigger('submit');
    await flushPromises();
    expect(save).toHaveBeenCalledWith(expect.objectContaining({ id: 'new', name: 'OpenRouter', type: 'openai-compatible', apiKey: 'sk-1', model: 'm' }));
    expect(value(wrapper, '#profile')).toBe('p3');
    expect(value(wrapper, '#profile-name')).toBe('OpenRouter');
    expect(value(wrapper, '#api-key')).toBe('');
    expect(wrapper.get('.note.ok').text()).toMatch(/^Saved\./);
    // Picking another profile: what was said about the last one goes.
    await wrapper.get('#profile').setValue('home');
    await flushPromises();
    expect(wrapper.find('.note.ok').exists()).toBe(false);
  });
});
