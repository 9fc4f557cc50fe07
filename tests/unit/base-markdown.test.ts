// @vitest-environment jsdom
// jsdom, not happy-dom: DOMPurify under happy-dom drops elements, so nothing could be compared.
import { mount } from '@vue/test-utils';
import { describe, expect, it } from 'vitest';
import BaseMarkdown from '@/components/base/BaseMarkdown.vue';
import { renderMarkdown } from '@/core/ui/markdown';

const frame = () => new Promise((resolve) => requestAnimationFrame(() => resolve(undefined)));

describe('BaseMarkdown', () => {
  it('shows a streamed answer as a whole render would, keeping the finished blocks', async () => {
    const text = '# Title\n\nFirst paragraph.\n\n```js\nconst a = 1;\n```\n\n- one\n- two\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\nLast words.';
    const wrapper = mount(BaseMarkdown, { props: { text: '' } });
    const el = wrapper.element as HTMLElement;
    let heading: Element | null = null;
    for (let end = 1; end <= text.length; end += 5) {
      await wrapper.setProps({ text: text.slice(0, end) });
      await frame();
      expect(el.innerHTML).toBe(renderMarkdown(text.slice(0, end)));
      if (end > 40) {
        // Settled blocks are rendered once: the heading's element stays the same one.
        heading ??= el.querySelector('h1');
        expect(el.querySelector('h1')).toBe(heading);
      }
    }
    await wrapper.setProps({ text });
    await frame();
    expect(el.innerHTML).toBe(renderMarkdown(text));
    wrapper.unmount();
  });

  it('patches the open end in place: a growing table keeps its elements, frame after frame', async () => {
    const rows = Array.from({ length: 12 }, (_, i) => `| cell ${i} | value ${i} |`).join('\n');
    const text = `Intro.\n\n| a | b |\n|---|---|\n${rows}`;
    const start = text.indexOf('| cell 0');
    const wrapper = mount(BaseMarkdown, { props: { text: text.slice(0, start + 3) } });
    const el = wrapper.element as HTMLElement;
    await frame();
    const table = el.querySelector('table');
    const firstCell = el.querySelector('tbody td');
    expect(table).not.toBeNull();
    for (let end = start + 10; end <= text.length; end += 7) {
      await wrapper.setProps({ text: text.slice(0, end) });
      await frame();
      expect(el.innerHTML).toBe(renderMarkdown(text.slice(0, end)));
      expect(el.querySelector('table')).toBe(table);
      expect(el.querySelector('tbody td')).toBe(firstCell);
    }
    wrapper.unmount();
  });

  it('renders several changes within one frame once, with the latest text', async () => {
    const wrapper = mount(BaseMarkdown, { props: { text: 'a' } });
    await wrapper.setProps({ text: 'a b' });
    await wrapper.setProps({ text: 'a b c' });
    await frame();
    expect(wrapper.element.innerHTML).toBe(renderMarkdown('a b c'));
    await wrapper.setProps({ text: 'other text' });
    await frame();
    expect(wrapper.element.innerHTML).toBe(renderMarkdown('other text'));
    wrapper.unmount();
  });
});
