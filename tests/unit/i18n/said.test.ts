// @vitest-environment happy-dom
import { deserializeError, serializeError } from '@aklinker1/zero-serialize-error';
import { mount } from '@vue/test-utils';
import ChatRunStatus from '@/components/chat/ChatRunStatus.vue';
import { describeProviderError } from '@/core/agent/errors';
import { describeListError } from '@/core/agent/providers';
import { HttpError } from '@/core/agent/providers/common';
import { english, said, saidCount, SaidError, saidOf } from '@/core/i18n/catalog';
import { validateProviderProfile } from '@/core/storage/settings';
import { errorText, say, setLocale } from '@/core/ui/i18n';
import { conversation } from '../components/fixtures';

afterEach(() => setLocale('en', document));

/**
 * Words the background writes (run errors, provider checks, notices, settings errors) are kept as
 * a message key and values (`Said`) beside their English text: the pages show them in their own
 * language, the model and exports read English.
 */
describe('Said words', () => {
  it('render in English for the background and in the page language for the pages, nested words too', () => {
    const words = describeListError(new HttpError(401, ''), 'openai-compatible', 'https://api.example.com');
    expect(english(words)).toBe('The OpenAI-compatible provider at https://api.example.com refused the API key.');
    setLocale('he', document);
    const hebrew = say(words);
    expect(hebrew).toContain('https://api.example.com');
    expect(hebrew).not.toContain('refused');
    expect(hebrew).not.toContain('OpenAI-compatible');
  });

  it('pick plural forms per language', () => {
    expect(english(saidCount('dataSettings.applied.keys', 1))).toBe('1 API key');
    expect(english(saidCount('dataSettings.applied.keys', 3))).toBe('3 API keys');
  });

  it('fall back to the stored English text when a key is unknown (an imported file, an older version)', () => {
    expect(say({ key: 'no.such.key' as never }, 'The stored sentence.')).toBe('The stored sentence.');
    expect(say(undefined, 'Plain text.')).toBe('Plain text.');
    expect(say('Plain text.')).toBe('Plain text.');
    expect(say({ key: 'constructor.name' as never }, 'Stored.')).toBe('Stored.');
    expect(say({ key: '__proto__.toString' as never }, 'Stored.')).toBe('Stored.');
  });

  it('cross the extension messaging inside errors (serialized with their own properties)', () => {
    const error = new SaidError('errors.provider.onlyProfile');
    expect(error.message).toBe('This is the only profile: change it instead of deleting it.');
    const received = deserializeError(JSON.parse(JSON.stringify(serializeError(error))));
    expect(saidOf(received)).toEqual({ key: 'errors.provider.onlyProfile' });
    setLocale('vi', document);
    expect(errorText(received)).not.toBe(error.message);
    expect(errorText(new Error('Not said.'))).toBe('Not said.');
  });

  it('word settings errors with the field named in the page language', () => {
    let thrown: unknown;
    try {
      validateProviderProfile({ type: 'ollama', baseUrl: 'http://localhost:11434', model: 'm', numCtx: 5 });
    } catch (error) {
      thrown = error;
    }
    expect((thrown as Error).message).toBe('Ollama context (num_ctx) must be a whole number of tokens between 256 and 10,000,000.');
    setLocale('zh-CN', document);
    expect(errorText(thrown)).toContain('num_ctx');
    expect(errorText(thrown)).not.toContain('must be');
  });

  it('show a run error in the sidebar in the page language, and English for older saved errors', () => {
    const error = describeProviderError(Object.assign(new TypeError('Failed to fetch')), 'http://localhost:1234/v1');
    expect(error.message).toBe('Could not reach the model provider at http://localhost:1234/v1. Check that it is running and that the base URL in Settings is right.');
    expect(error.said).toEqual(said('errors.provider.unreachable', { baseUrl: 'http://localhost:1234/v1' }));
    setLocale('he', document);
    const title = (c: ReturnType<typeof conversation>) => mount(ChatRunStatus, { props: { conversation: c, running: false } }).get('.title').text();
    const hebrew = title(conversation({ status: 'error', error }));
    expect(hebrew).toContain('http://localhost:1234/v1');
    expect(hebrew).not.toContain('Could not reach');
    expect(title(conversation({ status: 'error', error: { kind: 'network', message: 'Saved before words were kept.' } }))).toBe('Saved before words were kept.');
  });
});
