// @vitest-environment jsdom
// jsdom, not happy-dom: DOMPurify reads each node's name through Node.prototype's `nodeName`
// getter, which returns "" for elements in happy-dom 21 (Element overrides it); so under happy-dom
// DOMPurify takes every element for an unknown one, removes the first and leaves the rest
// unsanitized. In the browsers (and jsdom) it works, and this file tests what they do.
import { enableAutoUnmount, mount } from '@vue/test-utils';
import { afterEach, beforeAll, describe, expect, test } from 'vitest';
import { defineComponent, h, nextTick, onUpdated, provide, shallowReactive } from 'vue';
import ChatMessage from '@/components/chat/ChatMessage.vue';
import { MESSAGE_TEXT } from '@/components/chat/streamed-text';
import type { AssistantMessage, ToolMessage, UserMessage } from '@/core/storage/db';
import { providePluginUi } from '@/core/ui/plugins';
import { assistantMessage, toolCall, toolMessage, userMessage, loadAnswerParts } from './fixtures';

const mountMessage = (message: UserMessage | AssistantMessage, toolResults = new Map<string, ToolMessage>(), runActive = false) =>
  mount(ChatMessage, { props: { message, toolResults, runActive }, attachTo: document.body });

declare global {
  var __pwned: unknown;
}

enableAutoUnmount(afterEach);
beforeAll(loadAnswerParts);
afterEach(() => {
  delete globalThis.__pwned;
});

describe('ChatMessage', () => {
  test("a user message is the user's text as typed, markup included as text", () => {
    const wrapper = mountMessage(userMessage('Summarise **this** page <b>now</b>\nplease'));
    const article = wrapper.get('article');
    expect(article.attributes('aria-label')).toBe('You said');
    expect(article.classes()).toContain('user');
    expect(wrapper.get('.bubble').text()).toBe('Summarise **this** page <b>now</b>\nplease');
    expect(wrapper.find('.bubble b').exists()).toBe(false);
    expect(wrapper.find('strong').exists()).toBe(false);
  });

  test("an assistant answer is rendered Markdown: emphasis, lists, code, links that open in a new tab", () => {
    const text = 'The page says **two** things:\n\n- first\n- second\n\nRun `npm test`, see [the docs](https://example.com/docs).';
    const wrapper = mountMessage(assistantMessage({ text }));
    const article = wrapper.get('article');
    expect(article.attributes('aria-label')).toBe('Sidequest said');
    expect(article.classes()).toEqual(expect.arrayContaining(['assistant', 'complete']));
    expect(article.attributes('aria-busy')).toBe('false');
    expect(wrapper.get('.markdown strong').text()).toBe('two');
    expect(wrapper.findAll('.markdown li').map((li) => li.text())).toEqual(['first', 'second']);
    expect(wrapper.get('.markdown code').text()).toBe('npm test');
    const link = wrapper.get('.markdown a');
    expect(link.text()).toBe('the docs');
    expect(link.attributes()).toMatchObject({ href: 'https://example.com/docs', target: '_blank', rel: 'noopener noreferrer' });
  });

  test('script and event-handler payloads in an answer become text, never elements, and never run', () => {
    const payload = [
      'Here you go: <script>globalThis.__pwned = "script"</script>',
      '',
      '<img src="x" onerror="globalThis.__pwned = \'img\'">',
      '',
      '<a href="https://example.com" onclick="globalThis.__pwned = \'click\'">click me</a> and <svg onload="globalThis.__pwned = \'svg\'"></svg>',
      '',
      '[a link](javascript:globalThis.__pwned=1) ![pixel](https://tracker.example/p.png)',
    ].join('\n');
    const wrapper = mountMessage(assistantMessage({ text: payload }));
    const markdown = wrapper.get('.markdown');
    for (const tag of ['script', 'img', 'svg', 'iframe', 'style']) expect(markdown.find(tag).exists(), tag).toBe(false);
    const withHandler = markdown.findAll('*').filter((el) => el.element.getAttributeNames().some((name) => name.startsWith('on')));
    expect(withHandler.map((el) => el.html())).toEqual([]);
    // The payloads are shown as the text they are.
    expect(markdown.text()).toContain('<script>globalThis.__pwned = "script"</script>');
    expect(markdown.text()).toContain('<img src="x" onerror=');
    // No javascript: link; the image is a plain link to its address (no request for it).
    const hrefs = markdown.findAll('a').map((a) => a.attributes('href'));
    expect(hrefs.filter((href) => href && !/^https:/.test(href))).toEqual([]);
    expect(hrefs).toContain('https://tracker.example/p.png');
    // Clicking everything that is there runs nothing.
    for (const el of markdown.findAll('a')) el.element.dispatchEvent(new MouseEvent('click', { bubbles: true, cancelable: true }));
    expect(globalThis.__pwned).toBeUndefined();
  });

  test('a streaming answer with no text yet shows the thinking indicator, busy for screen readers', () => {
    const wrapper = mountMessage(assistantMessage({ status: 'streaming' }), undefined, true);
    expect(wrapper.get('article').attributes('aria-busy')).toBe('true');
    expect(wrapper.get('.thinking[role="status"]').text()).toBe('Thinking…');
    expect(wrapper.find('.markdown').exists()).toBe(false);
    // Once text arrives, the text replaces the indicator.
    const streaming = mountMessage(assistantMessage({ status: 'streaming', text: 'Partly' }), undefined, true);
    expect(streaming.find('.thinking').exists()).toBe(false);
    expect(streaming.get('.markdown').text()).toBe('Partly');
  });

  test('a stopped or interrupted answer says so; a complete one does not', () => {
    expect(mountMessage(assistantMessage({ text: 'Half', status: 'stopped' })).get('.tag').text()).toBe('Stopped');
    expect(mountMessage(assistantMessage({ text: 'Half', status: 'interrupted' })).get('.tag').text()).toBe('Interrupted here');
    expect(mountMessage(assistantMessage({ text: 'Whole' })).find('.tag').exists()).toBe(false);
  });

  test('each tool call gets its card, in order, with its own result', () => {
    const calls = [toolCall({ id: 'a', name: 'list_tabs', input: {} }), toolCall({ id: 'b', name: 'get_tab_content', input: { tabId: 7 } })];
    const results = new Map([['a', toolMessage({ toolCallId: 'a', toolName: 'list_tabs', status: 'done' })]]);
    const wrapper = mountMessage(assistantMessage({ text: 'Looking.', toolCalls: calls, status: 'streaming' }), results, true);
    const cards = wrapper.findAll('details.tool');
    expect(cards.map((card) => card.attributes('data-tool'))).toEqual(['list_tabs', 'get_tab_content']);
    expect(cards[0]!.classes()).toContain('done');
    expect(cards[1]!.classes()).toContain('running');
  });
});

describe('ChatMessage and the plugins', () => {
  const Action = defineComponent({
    props: { message: { type: Object, required: true }, conversationId: { type: String, required: true } },
    setup: (props) => () => h('button', { class: 'plugin-action', 'data-for': `${props.conversationId}/${(props.message as AssistantMessage).id}` }, 'Save as skill'),
  });
  afterEach(() => providePluginUi([]));

  const mountEnd = (fields: { endsRun?: boolean; runActive?: boolean; message?: AssistantMessage }) =>
    mount(ChatMessage, {
      props: {
        message: fields.message ?? assistantMessage({ text: 'Done.' }),
        toolResults: new Map(),
        runActive: fields.runActive ?? false,
        endsRun: fields.endsRun ?? true,
        conversationId: 'c1',
      },
      attachTo: document.body,
    });

  test("the plugins' message actions sit in the Usage · Trace row of a finished run's last answer, with the message and conversation", () => {
    providePluginUi([{ id: 'skills', messageActions: [{ id: 'save', component: Action }] }]);
    const wrapper = mountEnd({});
    const action = wrapper.get('.details .buttons .plugin-action');
    expect(action.attributes('data-for')).toBe('c1/a1');
    expect(wrapper.findAll('.details .buttons button').map((b) => b.text())).toEqual(['Usage', 'Trace', 'Save as skill']);
  });

  test('no message actions under a step that does not end its run, nor while the run goes on', () => {
    providePluginUi([{ id: 'skills', messageActions: [{ id: 'save', component: Action }] }]);
    expect(mountEnd({ endsRun: false }).find('.plugin-action').exists()).toBe(false);
    expect(mountEnd({ runActive: true }).find('.plugin-action').exists()).toBe(false);
  });

  test('a replayed answer (`by`) carries the "Replayed" tag, with who replayed it as its title', () => {
    const by = { key: 'chatMessage.stopped' } as const; // any known words stand for the plugin's
    const wrapper = mountEnd({ message: assistantMessage({ text: '', toolCalls: [toolCall()], by }) });
    const pill = wrapper.get('.replayed .pill');
    expect(pill.text()).toBe('Replayed');
    expect(pill.attributes('title')).toBe('Stopped');
    expect(wrapper.get('.replayed').text()).toContain('Stopped');
    expect(mountEnd({}).find('.replayed').exists()).toBe(false);
  });

  test('a streamed piece renders the streaming answer again, and neither the list around it nor the other messages', async () => {
    const streamed = shallowReactive(new Map<string, string>());
    const messages = [userMessage('hi'), assistantMessage({ id: 'a1', text: 'Done before.' }), assistantMessage({ id: 'a2', text: 'Str', status: 'streaming' })];
    let listRenders = 0;
    const updated: string[] = [];
    const Item = defineComponent({
      props: { message: { type: Object, required: true } },
      setup(props) {
        onUpdated(() => updated.push((props.message as AssistantMessage).id));
        return () => h(ChatMessage, { message: props.message as AssistantMessage, toolResults: new Map(), runActive: true });
      },
    });
    const List = defineComponent({
      setup() {
        provide(MESSAGE_TEXT, (m: { id: string; text: string }) => streamed.get(m.id) ?? m.text);
        return () => {
          listRenders++;
          return h('div', messages.map((m) => h(Item, { key: m.id, message: m })));
        };
      },
    });
    const wrapper = mount(List, { attachTo: document.body });
    const answer = () => wrapper.findAll('article')[2]!;
    expect(answer().get('.markdown').text()).toBe('Str');
    streamed.set('a2', 'Streamed');
    await nextTick();
    await new Promise((resolve) => setTimeout(resolve, 300)); // the Markdown view renders at the next frame
    expect(answer().get('.markdown').text()).toBe('Streamed');
    expect(wrapper.findAll('article')[1]!.get('.markdown').text()).toBe('Done before.');
    expect(listRenders).toBe(1);
    expect(updated).toEqual([]);
  });
});
