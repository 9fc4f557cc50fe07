// The HTML → Markdown converter (core/extract/markdown.ts: Turndown 7.2.5 with
// turndown-plugin-gfm 1.0.2 and the module's rules). Every expectation in the first table below is
// what it gives for the same HTML (the whitespace rules are Turndown's, odd corners included), so
// a change there is a change of output. The link tests after it are the Markdown's own choices.
import { describe, expect, test } from 'vitest';
import { absoluteUrl, createMarkdownConverter, withoutTracking } from '@/core/extract';
import { parseHtml } from './helpers/dom';

const toMarkdown = createMarkdownConverter();
const convert = (html: string) => toMarkdown(parseHtml(`<body>${html}</body>`).body, 'https://site.example/docs/');

describe('createMarkdownConverter', () => {
  test.each([
    ['whitespace inside inline elements moves outside them; empty emphasis goes', '<p>Plain <em> spaced </em>emphasis and <strong>bold</strong>, <b></b>empty <i> </i>ones.</p>', 'Plain _spaced_ emphasis and **bold**, empty ones.'],
    ['a blank inline element is one space, not two', '<p>a<span> </span>b <span>c </span> d</p>', 'a b c d'],
    ['non-breaking spaces are never folded, and move outside emphasis too', '<p>x&nbsp;<em>&nbsp;y&nbsp;</em>&nbsp;z</p>', 'x\u00a0\u00a0_y_\u00a0\u00a0z'],
    ['blank blocks are one paragraph break; <br> is a line break', '<div>one</div>   <div> </div>\n<div>two<br>three<br></div>', 'one\n\ntwo\nthree'],
    ['form controls are dropped, their flanking spaces kept', '<p>a <button> Click </button> b <select><option>x</option></select> c</p>', 'a  b  c'],
    ['inline code: a longer fence around backticks, padding kept when needed', '<p>Use <code>a`b</code>, <code>`edge`</code> and <code> padded </code>.</p>', 'Use ``a`b``, `` `edge` `` and `padded` .'],
    ['code blocks: fenced with the language, a longer fence around a fence; <pre> alone kept as is', '<pre><code class="language-js">const a = 1;\n```\nnested fence\n</code></pre><pre>plain\n  pre   text</pre>', '````js\nconst a = 1;\n```\nnested fence\n````\n\nplain\n  pre   text'],
    ['GitHub-style highlighted blocks', '<div class="highlight highlight-source-python"><pre>print(1)\n</pre></div>', '```python\nprint(1)\n\n```'],
    ['lists, nested lists, paragraphs in items, task items', '<ul><li>one</li><li><p>para item</p><ul><li>nested</li></ul></li><li><input type="checkbox" checked> done</li><li><input type="checkbox"> todo</li></ul>', '- one\n- para item\n\n  - nested\n- [x]  done\n- [ ]  todo'],
    ['ordered lists count from their start', '<ol start="7"><li>seven</li><li>eight<ol><li>inner</li></ol></li></ol>', '7. seven\n8. eight\n   1. inner'],
    ['quotes, rules, headings with links', '<blockquote><p>Quoted</p><p>twice</p></blockquote><hr><h3> Heading <a href="/h">link</a></h3>', '> Quoted\n>\n> twice\n\n---\n\n### Heading [link](https://site.example/h)'],
    [
      'links: absolute, anchors and empty links unlinked or dropped, a linked image by its alt text',
      '<p><del>gone</del> <s>struck</s> <a href="https://x.example/a(b) c">paren link</a> <a href="#frag">anchor</a> <a href="/r"> </a><a href="/img"><img src="/i.png" alt="Linked picture"></a></p>',
      '~gone~ ~struck~ [paren link](https://x.example/a(b)%20c) anchor [Linked picture](https://site.example/img)',
    ],
    ['only a # that would make a heading is escaped', '<p># not a heading</p><p>  ## neither</p><p>C# is fine</p>', '\\# not a heading\n\n\\## neither\n\nC# is fine'],
    ['tables: caption first, spans padded, pipes escaped', '<table><caption>Cap</caption><thead><tr><th>A</th><th colspan="2">B</th></tr></thead><tbody><tr><td>1</td><td>2 | 3</td></tr></tbody></table>', 'Cap\n\n| A | B | |\n| --- | --- | --- |\n| 1 | 2 \\| 3 | |'],
    ['comments vanish; an image named by its file name is left out', '<p>text<!-- comment -->more <wbr>word<img src="/x.png" alt="IMG_1.jpg"> end</p>', 'textmore word end'],
    ['definition lists and figures', '<dl><dt>Term</dt><dd>Definition <sup>1</sup></dd></dl><figure><img src="/f.png" alt="A figure"><figcaption>Caption text</figcaption></figure>', 'Term\n\nDefinition 1\n\n![A figure](https://site.example/f.png)\n\nCaption text'],
  ])('%s', (_what, html, markdown) => {
    expect(convert(html)).toBe(markdown);
  });

  test('tracking parameters are left out of link and image addresses, the other parameters kept as written', () => {
    expect(withoutTracking('https://a.example/p?utm_source=x&id=7&UTM_Medium=y&fbclid=abc#part')).toBe('https://a.example/p?id=7#part');
    expect(withoutTracking('https://a.example/p?utm_campaign=x')).toBe('https://a.example/p');
    expect(withoutTracking('https://a.example/p?q=a%20b&gclid=1&x=')).toBe('https://a.example/p?q=a%20b&x=');
    expect(withoutTracking('https://a.example/p?futm_source=1&source=2')).toBe('https://a.example/p?futm_source=1&source=2');
    expect(absoluteUrl('/story?utm_medium=social&page=2', 'https://news.example/')).toBe('https://news.example/story?page=2');
    expect(convert('<p><a href="https://x.example/a?utm_source=rss&id=1">Story</a> <img src="/p.png?mc_cid=5" alt="A chart"></p>')).toBe(
      '[Story](https://x.example/a?id=1) ![A chart](https://site.example/p.png)',
    );
  });

  test('a target is written once: later links to it are their text; a link whose text is its address is the address', () => {
    const html = `<p><a href="/guide">The guide</a> explains it; see <a href="https://site.example/guide">the guide</a> again,
      <a href="/guide?utm_source=nav">once more</a>, and <a href="https://other.example/page">https://other.example/page</a>
      or <a href="https://other.example/">other.example</a>.</p>`;
    expect(convert(html)).toBe(
      '[The guide](https://site.example/guide) explains it; see the guide again, once more, and https://other.example/page or https://other.example/.',
    );
  });

  test('a link made only of images: by its alt text; its target kept unless it is a picture file, and a later text link keeps its own', () => {
    const html = `<p><a href="/photos/big.jpg"><img src="/photos/small.jpg" alt="The harbour at dawn"></a>
      <a href="/story"><img src="/thumb.png" alt="Storm damage"></a> <a href="/story">Storm hits the coast</a></p>`;
    expect(convert(html)).toBe(
      'The harbour at dawn [Storm damage](https://site.example/story) [Storm hits the coast](https://site.example/story)',
    );
  });

  test('one converter converts any number of trees, each with its own base URL', () => {
    const a = toMarkdown(parseHtml('<body><ol><li>x</li><li><a href="p">y</a></li></ol></body>').body, 'https://one.example/a/');
    const b = toMarkdown(parseHtml('<body><ol start="2"><li>x</li><li><a href="p">y</a></li></ol></body>').body, 'https://two.example/b/');
    expect(a).toBe('1. x\n2. [y](https://one.example/a/p)');
    expect(b).toBe('2. x\n3. [y](https://two.example/b/p)');
  });
});
