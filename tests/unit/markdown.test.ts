// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import { renderMarkdown } from '@/core/ui/markdown';

describe('renderMarkdown', () => {
  it('renders Markdown: emphasis, lists, code, tables, links', () => {
    const html = renderMarkdown('**bold** and `code`\n\n- one\n- two\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n[site](https://example.com)');
    expect(html).toContain('<strong>bold</strong>');
    expect(html).toContain('<code>code</code>');
    expect(html).toContain('<li>one</li>');
    expect(html).toContain('<table>');
    expect(html).toMatch(/<a href="https:\/\/example.com" target="_blank" rel="noopener noreferrer">site<\/a>/);
  });

  it('never lets raw HTML, scripts or handlers through', () => {
    const html = renderMarkdown('<script>alert(1)</script><img src=x onerror=alert(1)><b onclick="x()">b</b>\n\n<iframe src="https://evil"></iframe>');
    expect(html).not.toMatch(/<script|<img|<iframe|<b /);
    expect(html).not.toMatch(/<[a-z][^>]*\son\w+=/i);
    expect(html).toContain('&lt;script&gt;');
  });

  it('drops javascript:, data: and vbscript: links, and remote images', () => {
    for (const url of ['javascript:alert(1)', 'JaVaScRiPt:alert(1)', 'data:text/html,<script>alert(1)</script>', 'vbscript:msgbox(1)']) {
      const html = renderMarkdown(`[click](${url})`);
      expect(html, url).not.toMatch(/href="(javascript|data|vbscript)/i);
    }
    const image = renderMarkdown('![tracker](https://evil.example/pixel.png)');
    expect(image).not.toMatch(/<img/);
    expect(image).toMatch(/<a href="https:\/\/evil.example\/pixel.png" target="_blank" rel="noopener noreferrer">tracker<\/a>/);
  });
});
