// @vitest-environment happy-dom
import { mount, type VueWrapper } from '@vue/test-utils';
import { describe, expect, test } from 'vitest';
import ChatMessageToolCall from '@/components/chat/ChatMessageToolCall.vue';
import type { ToolCall, ToolMessage } from '@/core/storage/db';
import { toolCall, toolMessage } from './fixtures';

const mountCard = (call: ToolCall, result?: ToolMessage, runActive = false) => mount(ChatMessageToolCall, { props: { call, result, runActive } });

/** Opens the card as a click on its summary does: the body is only built once it is open. */
async function open(wrapper: VueWrapper): Promise<void> {
  const details = wrapper.get('details').element as HTMLDetailsElement;
  details.open = true;
  await wrapper.get('details').trigger('toggle');
}

/** The state icon's text for screen readers, e.g. "Running:". */
const stateLabel = (wrapper: VueWrapper) => wrapper.get('.state .sr-only').text();

describe('ChatMessageToolCall', () => {
  test('running: a spinner while the run goes on, the tool name and a short input; the body stays unbuilt until opened', () => {
    const wrapper = mountCard(toolCall({ name: 'get_tab_content', input: { tabId: 3, selector: 'main' } }), undefined, true);
    const card = wrapper.get('details.tool');
    expect(card.classes()).toContain('running');
    expect(card.attributes('data-tool')).toBe('get_tab_content');
    expect(card.attributes('open')).toBeUndefined();
    expect(wrapper.find('.spinner').exists()).toBe(true);
    expect(stateLabel(wrapper)).toBe('Running:');
    expect(wrapper.get('.name').text()).toBe('get_tab_content');
    expect(wrapper.get('.summary').text()).toBe('{"tabId":3,"selector":"main"}');
    expect(wrapper.get('.duration').text()).toBe('');
    expect(wrapper.find('.body').exists()).toBe(false);
  });

  test('a result message still marked running counts as running; with the run over, as not finished', () => {
    const running = toolMessage({ status: 'running', result: undefined });
    expect(mountCard(toolCall(), running, true).get('details').classes()).toContain('running');
    const ended = mountCard(toolCall(), running, false);
    expect(ended.get('details').classes()).toContain('interrupted');
    expect(ended.find('.spinner').exists()).toBe(false);
    expect(stateLabel(ended)).toBe('Did not finish:');
  });

  test('done: the state, the time taken, and once opened the input and the result as JSON', async () => {
    const result = toolMessage({ status: 'done', durationMs: 120, result: { ok: true, output: { title: 'Example', tabs: 2 } } });
    const wrapper = mountCard(toolCall({ input: { tabId: 3 } }), result, true);
    expect(wrapper.get('details').classes()).toContain('done');
    expect(stateLabel(wrapper)).toBe('Done:');
    expect(wrapper.get('.duration').text()).toBe('120 ms');
    await open(wrapper);
    const labels = wrapper.findAll('.body .label').map((l) => l.text());
    expect(labels).toEqual(['Input', 'Result']);
    const pres = wrapper.findAll('.body pre');
    expect(JSON.parse(pres[0]!.text())).toEqual({ tabId: 3 });
    expect(JSON.parse(wrapper.get('.result-text').text())).toEqual({ title: 'Example', tabs: 2 });
    expect(wrapper.find('.error-text').exists()).toBe(false);
  });

  test('long text fields of a result are shown as text under their name, a cut result says so, seconds past one second', async () => {
    const markdown = '# Page\n\nLine one\nLine two';
    const result = toolMessage({ durationMs: 1530, result: { ok: true, truncated: true, output: { title: 'Page', markdown } } });
    const wrapper = mountCard(toolCall(), result, false);
    expect(wrapper.get('.duration').text()).toBe('1.5 s');
    await open(wrapper);
    expect(wrapper.findAll('.body .label').map((l) => l.text())).toEqual(['Input', 'Result (cut)', 'markdown']);
    const results = wrapper.findAll('.result-text').map((pre) => pre.text());
    expect(JSON.parse(results[0]!)).toEqual({ title: 'Page' });
    expect(results[1]).toBe(markdown);
  });

  test('a result that is only text fields shows just those, no empty JSON', async () => {
    const text = 'x'.repeat(200);
    const wrapper = mountCard(toolCall(), toolMessage({ result: { ok: true, output: { content: text } } }), false);
    await open(wrapper);
    expect(wrapper.findAll('.result-text').map((pre) => pre.text())).toEqual([text]);
  });

  test("error: the tool's error message, for the user to read", async () => {
    const result = toolMessage({ status: 'error', result: { ok: false, code: 'not_found', error: 'Tab 12 is closed; call list_tabs.' } });
    const wrapper = mountCard(toolCall(), result, true);
    expect(wrapper.get('details').classes()).toContain('error');
    expect(stateLabel(wrapper)).toBe('Failed:');
    await open(wrapper);
    expect(wrapper.findAll('.body .label').map((l) => l.text())).toEqual(['Input', 'Error']);
    expect(wrapper.get('.error-text').text()).toBe('Tab 12 is closed; call list_tabs.');
    expect(wrapper.find('.result-text').exists()).toBe(false);
  });

  test("a call the model got wrong is an error even before any result, and says why", async () => {
    const wrapper = mountCard(toolCall({ name: 'open_tabz', invalid: 'there is no tool named "open_tabz"' }), undefined, true);
    expect(wrapper.get('details').classes()).toContain('error');
    expect(wrapper.find('.spinner').exists()).toBe(false);
    await open(wrapper);
    expect(wrapper.get('.error-text').text()).toBe('The model\'s call could not be used: there is no tool named "open_tabz".');
  });

  test("a page's tool shows the site that offered it; long inputs are shortened; an empty input shows nothing", () => {
    const fromPage = mountCard(toolCall({ name: 'search_catalog' }), toolMessage({ origin: 'https://shop.example:8443' }));
    expect(fromPage.get('.site').text()).toBe('shop.example:8443');
    expect(fromPage.get('.site').attributes('title')).toBe('A tool offered by https://shop.example:8443');
    expect(mountCard(toolCall(), toolMessage()).find('.site').exists()).toBe(false);

    const long = mountCard(toolCall({ input: { query: 'q'.repeat(100) } }), undefined, true);
    const summary = long.get('.summary').text();
    expect(summary).toHaveLength(70);
    expect(summary.endsWith('…')).toBe(true);
    expect(mountCard(toolCall({ input: {} }), undefined, true).get('.summary').text()).toBe('');
  });

  test('input and results are shown as text, never as markup', async () => {
    const wrapper = mountCard(toolCall({ input: { html: '<img src=x onerror=alert(1)>' } }), toolMessage({ result: { ok: true, output: '<script>alert(1)</script>' } }));
    await open(wrapper);
    expect(wrapper.find('img').exists()).toBe(false);
    expect(wrapper.find('script').exists()).toBe(false);
    expect(wrapper.get('.result-text').text()).toBe('<script>alert(1)</script>');
  });
});
