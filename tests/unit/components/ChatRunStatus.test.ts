// @vitest-environment happy-dom
import { mount } from '@vue/test-utils';
import { describe, expect, test } from 'vitest';
import ChatRunStatus from '@/components/chat/ChatRunStatus.vue';
import type { Conversation } from '@/core/storage/db';
import { conversation } from './fixtures';
import { setLocale } from '@/core/ui/i18n';

const mountStatus = (c: Conversation | null, running = false) => mount(ChatRunStatus, { props: { conversation: c, running } });

/** What the status box says and offers, or null when it is not shown. */
function shown(c: Conversation | null, running = false) {
  const wrapper = mountStatus(c, running);
  const box = wrapper.find('[role="alert"]');
  if (!box.exists()) return null;
  return {
    tone: box.classes().find((name) => ['danger', 'warn', 'quiet'].includes(name)),
    title: box.get('.title').text(),
    detail: box.find('.detail').exists() ? box.get('.detail').text() : undefined,
    buttons: box.findAll('button').map((b) => b.text()),
  };
}

describe('ChatRunStatus', () => {
  test('nothing to say: no conversation, a run that ended normally, a run still going', () => {
    expect(shown(null)).toBeNull();
    expect(shown(conversation({ status: 'idle' }))).toBeNull();
    expect(shown(conversation({ status: 'running' }), true)).toBeNull();
    // A status from the last run is not shown while a new run goes on.
    expect(shown(conversation({ status: 'error', error: { kind: 'network', message: 'Broke off.' } }), true)).toBeNull();
    expect(shown(conversation({ status: 'stopped' }), true)).toBeNull();
  });

  test('stopped by the loop guard: what it repeated, in the page\'s language, and Continue', () => {
    const loop = { key: 'runStatus.loopCall' as const, params: { tool: 'click', count: 3 } };
    expect(shown(conversation({ status: 'loop', loop }))).toEqual({
      tone: 'warn',
      title: 'Stopped: the agent was going round in circles.',
      detail: 'It made the same call (click, with the same arguments and the same result) 3 times. Continue lets it try again; or tell it what to do differently.',
      buttons: ['Continue'],
    });
    setLocale('he');
    try {
      expect(shown(conversation({ status: 'loop', loop }))!.detail).toContain('click');
      expect(shown(conversation({ status: 'loop', loop }))!.title).toBe('נעצר: הסוכן הסתובב במעגלים.');
    } finally {
      setLocale('en');
    }
    expect(shown(conversation({ status: 'loop' }))!.detail).toBeUndefined();
  });

  test('interrupted, stopped, step limit: what happened, and Continue', () => {
    expect(shown(conversation({ status: 'interrupted' }))).toEqual({
      tone: 'warn',
      title: 'The run was interrupted: the browser stopped the extension in the background.',
      detail: 'Everything up to this point is saved.',
      buttons: ['Continue'],
    });
    expect(shown(conversation({ status: 'stopped' }))).toEqual({ tone: 'quiet', title: 'You stopped the run.', detail: undefined, buttons: ['Continue'] });
    expect(shown(conversation({ status: 'step_limit' }))).toEqual({
      tone: 'warn',
      title: 'The agent reached its step limit and stopped.',
      detail: undefined,
      buttons: ['Continue'],
    });
  });

  test("error: the error's sentence and the provider's words, Retry, and Open settings when settings can fix it", () => {
    for (const kind of ['auth', 'not_found', 'network', 'bad_request'] as const) {
      expect(shown(conversation({ status: 'error', error: { kind, message: `A ${kind} problem.`, detail: 'HTTP 401: bad key' } })), kind).toEqual({
        tone: 'danger',
        title: `A ${kind} problem.`,
        detail: 'HTTP 401: bad key',
        buttons: ['Retry', 'Open settings'],
      });
    }
    for (const kind of ['rate_limit', 'server', 'malformed', 'unknown'] as const) {
      expect(shown(conversation({ status: 'error', error: { kind, message: 'Try again later.' } }))?.buttons, kind).toEqual(['Retry']);
    }
    expect(shown(conversation({ status: 'error' }))).toEqual({ tone: 'danger', title: 'The run failed.', detail: undefined, buttons: ['Retry'] });
  });

  test('Continue and Retry emit resume; Open settings emits settings', async () => {
    const stopped = mountStatus(conversation({ status: 'step_limit' }));
    await stopped.get('button').trigger('click');
    expect(stopped.emitted('resume')).toEqual([[]]);
    expect(stopped.emitted('settings')).toBeUndefined();

    const failed = mountStatus(conversation({ status: 'error', error: { kind: 'auth', message: 'The API key was refused.' } }));
    const [retry, settings] = failed.findAll('button');
    await settings!.trigger('click');
    expect(failed.emitted('settings')).toEqual([[]]);
    expect(failed.emitted('resume')).toBeUndefined();
    await retry!.trigger('click');
    expect(failed.emitted('resume')).toEqual([[]]);
  });

  test('the box goes away once a run starts, and comes back with the new outcome', async () => {
    const wrapper = mountStatus(conversation({ status: 'stopped' }));
    expect(wrapper.find('[role="alert"]').exists()).toBe(true);
    await wrapper.setProps({ running: true, conversation: conversation({ status: 'running' }) });
    expect(wrapper.find('[role="alert"]').exists()).toBe(false);
    await wrapper.setProps({ running: false, conversation: conversation({ status: 'interrupted' }) });
    expect(wrapper.get('.title').text()).toMatch(/^The run was interrupted/);
  });
});
