import { describe, expect, it } from 'vitest';
import { NEW_CONVERSATION, ProviderService } from '@/core/background/providers';
import { said } from '@/core/i18n/catalog';
import { openDb } from '@/core/storage/db';
import { conversationModels, ProviderSecrets } from '@/core/storage/settings';

let count = 0;
const service = () => new ProviderService(new ProviderSecrets(openDb(`test-provider-service-${++count}`)));

describe('provider profiles in the background', () => {
  it('edits the default profile, adds new ones that become the default, keeps keys per profile', async () => {
    const providers = service();
    let view = await providers.save({ baseUrl: 'http://127.0.0.1:8788/v1', model: 'scripted-model', apiKey: 'sk-1' });
    expect(view).toMatchObject({ id: 'default', type: 'openai-compatible', hasApiKey: true });
    view = await providers.save({ id: 'new', type: 'anthropic', baseUrl: 'https://api.anthropic.com/v1', model: 'claude-x', apiKey: 'sk-ant' });
    expect(view.profiles).toHaveLength(2);
    expect(view.activeId).not.toBe('default');
    expect(view).toMatchObject({ type: 'anthropic', name: 'Anthropic (api.anthropic.com)', hasApiKey: true });
    expect(await providers.config()).toMatchObject({ type: 'anthropic', model: 'claude-x', apiKey: 'sk-ant' });
    // Nothing of the keys in storage.local.
    const { fakeBrowser } = await import('wxt/testing');
    expect(JSON.stringify(await fakeBrowser.storage.local.get(null))).not.toMatch(/sk-/);
    view = await providers.remove(view.activeId);
    expect(view.profiles.map((p) => p.id)).toEqual(['default']);
    await expect(providers.remove('default')).rejects.toThrow(/only profile/);
  });

  it('prepares the default profile\'s provider package ahead of a send, and sends nothing doing it', async () => {
    const providers = service();
    await providers.save({ id: 'new', type: 'anthropic', baseUrl: 'https://api.anthropic.com/v1', model: 'claude-x', apiKey: 'sk-ant' });
    const { vi } = await import('vitest');
    const fetchSpy = vi.spyOn(globalThis, 'fetch');
    const packages = await import('@/core/agent/providers/anthropic-client');
    const createClient = vi.spyOn(packages.default, 'createClient');
    await providers.prepare();
    expect(createClient).toHaveBeenCalledWith(expect.objectContaining({ type: 'anthropic', model: 'claude-x' }));
    expect(fetchSpy).not.toHaveBeenCalled();
    // A profile that cannot be built is left to the run to report.
    await providers.save({ id: 'new', type: 'anthropic', baseUrl: 'https://api.anthropic.com/v1', model: 'claude-y' });
    await expect(providers.prepare()).resolves.toBeUndefined();
    fetchSpy.mockRestore();
    createClient.mockRestore();
  });

  it('refuses to keep a key for a plain-http address on another computer', async () => {
    const providers = service();
    await expect(providers.save({ baseUrl: 'http://models.example.com/v1', model: 'm', apiKey: 'sk-1' })).rejects.toThrow(/plain http/);
    expect((await providers.settings.getValue()).profiles[0]!.baseUrl).not.toContain('example.com');
    // Loopback is fine, and so is https.
    await providers.save({ baseUrl: 'http://localhost:1234/v1', model: 'm', apiKey: 'sk-1' });
    await providers.save({ baseUrl: 'https://models.example.com/v1', model: 'm', apiKey: 'sk-1' });
  });

  it('binds a saved key to its address: moving the profile to another origin drops it, and lists for another address never get it', async () => {
    const providers = service();
    await providers.save({ baseUrl: 'https://api.one.example/v1', model: 'm', apiKey: 'sk-one' });
    // Same origin, another path: the key stays.
    expect(await providers.save({ baseUrl: 'https://api.one.example/v2', model: 'm' })).toMatchObject({ hasApiKey: true });
    const sent: Array<string | null> = [];
    const { vi } = await import('vitest');
    const fetchSpy = vi.spyOn(globalThis, 'fetch').mockImplementation(async (_url, init) => {
      sent.push(new Headers(init?.headers).get('authorization'));
      return new Response(JSON.stringify({ data: [] }), { headers: { 'content-type': 'application/json' } });
    });
    await providers.models({ baseUrl: 'https://elsewhere.example/v1' });
    await providers.models({});
    fetchSpy.mockRestore();
    expect(sent[0]).toBeNull();
    expect(sent[1]).toBe('Bearer sk-one');
    // Another origin: the key is dropped and must be given again.
    expect(await providers.save({ baseUrl: 'https://api.two.example/v1', model: 'm' })).toMatchObject({ hasApiKey: false });
  });

  it('keeps the model picked per conversation, and a pick on a new conversation goes to the next one', async () => {
    const providers = service();
    const anthropic = await providers.save({ id: 'new', type: 'anthropic', baseUrl: 'https://api.anthropic.com/v1', model: 'claude-x', apiKey: 'k' });
    await providers.save({ id: 'default', baseUrl: 'http://localhost:11434/v1', model: 'llama3.2' });
    await providers.setChoice('c1', { profileId: anthropic.activeId, model: 'claude-other' });
    expect(await providers.config('c1')).toMatchObject({ type: 'anthropic', model: 'claude-other' });
    expect(await providers.config('c2')).toMatchObject({ type: 'openai-compatible', model: 'llama3.2' });
    await providers.setChoice(NEW_CONVERSATION, { profileId: anthropic.activeId, model: 'claude-new' });
    await providers.adoptNew('c3');
    expect(await providers.getChoice('c3')).toEqual({ profileId: anthropic.activeId, model: 'claude-new' });
    expect(await providers.getChoice(NEW_CONVERSATION)).toBeNull();
    await providers.forget('c1');
    expect(Object.keys(await conversationModels.getValue())).toEqual(['c3']);
    await expect(providers.setChoice('c4', { profileId: 'gone', model: 'x' })).rejects.toThrow(/no longer exists/);
  });
});

describe('notices in the conversation', () => {
  it('are shown once when marked so, and never sent to the model', async () => {
    const { addNotice } = await import('@/core/background/providers');
    const { ConversationStore } = await import('@/core/storage/conversations');
    const { toModelPrompt } = await import('@/core/agent/history');
    const store = new ConversationStore(openDb(`test-notices-${++count}`));
    const broadcast: unknown[] = [];
    const hub = { broadcast: (e: unknown) => broadcast.push(e) } as never;
    const conversation = await store.create();
    await store.append({ role: 'user', conversationId: conversation.id, text: 'Hello' });
    await addNotice(store, hub, conversation.id, 'prompted-tools', said('notices.promptedTools'), true);
    await addNotice(store, hub, conversation.id, 'prompted-tools', said('notices.promptedTools'), true);
    await addNotice(store, hub, conversation.id, 'context', said('notices.summarized', { max: 4096 }));
    await addNotice(store, hub, conversation.id, 'context', said('notices.summarized', { max: 4096 }));
    const messages = await store.messages(conversation.id);
    expect(messages.filter((m) => m.role === 'assistant').map((m) => m.role === 'assistant' && m.text)).toEqual([
      '*This model has no native tool calling: Sidequest now describes the tools in its prompt and reads its calls from its answers.*',
      '*The earlier part of this conversation was summarized for the model, to fit its context window of 4096 tokens. The full record stays here.*',
      '*The earlier part of this conversation was summarized for the model, to fit its context window of 4096 tokens. The full record stays here.*',
    ]);
    // The words are kept for the pages to show in their language.
    expect(messages.filter((m) => m.role === 'assistant').map((m) => m.role === 'assistant' && m.said?.key)).toEqual([
      'notices.promptedTools',
      'notices.summarized',
      'notices.summarized',
    ]);
    expect(broadcast).toHaveLength(3);
    expect(toModelPrompt('system', messages)).toEqual([
      { role: 'system', content: 'system' },
      { role: 'user', content: [{ type: 'text', text: 'Hello' }] },
    ]);
  });
});
