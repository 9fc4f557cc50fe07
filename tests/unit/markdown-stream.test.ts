// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import { renderMarkdown } from '@/core/ui/markdown';
import { MarkdownStream } from '@/core/ui/markdown-stream';

/** Streams `text` cut at `cuts` (every character by default); checks each step against a whole render. */
function stream(text: string, cuts?: number[]): { settled: string; open: string; settledSteps: number } {
  const renderer = new MarkdownStream();
  let settled = '';
  let open = '';
  let settledSteps = 0;
  const ends = cuts ?? Array.from({ length: text.length }, (_, i) => i + 1);
  for (const end of [...ends, text.length]) {
    const prefix = text.slice(0, end);
    const update = renderer.update(prefix);
    settled = update.reset ? update.settled : settled + update.settled;
    open = update.open;
    if (update.settled && !update.reset) settledSteps++;
    expect(settled + open, JSON.stringify(prefix)).toBe(renderMarkdown(prefix));
  }
  return { settled, open, settledSteps };
}

const TRICKY: Record<string, string> = {
  'a fence opened in one piece and closed later': 'Intro text.\n\n```js\nconst a = 1;\n\nconsole.log(a);\n```\n\nAfter the fence.\n\n~~~\nnot closed by ```\n~~~\nEnd.',
  'a list that turns loose, then ends': '- one\n- two\n\n- three\n  continued\n\n  second paragraph\n- four\n\nParagraph after.\n\n1. a\n2. b\n\n3. c\n\nDone.\n',
  'a table, also interrupting a paragraph': 'Before\n| a | b |\n|---|:-:|\n| 1 | 2 |\n| 3 |\n\n| x | y |\n|---|---|x\n\nText\n| h |\n|--\n| not | a table |\n\nfoo\n| a | b |\n|---|--x\n\nend',
  'nested quotes with lazy lines': '> quote\nlazy line\n> > nested\n> > more\n>\n> back\n\n> second quote\n\nplain\n',
  'setext headings and rules': 'Title\n=====\n\nSub\n---\n\ntext\n\n---\n\n- - -\nafter rule\n***\n',
  'indented code and html-like text': 'para\n\n    code line\n\n    more code\n\n<div onclick="x()">raw</div>\n\n<script>alert(1)</script>\n',
  'headings, emphasis and links across pieces': '# Head\n\nSome **bold\ntext** and [a link](https://example.com)\nhttps://example.org/path\n\n## Next\n\n![img](https://evil.example/p.png)\n',
};

// The two long checks render thousands of texts; on a busy machine they outlast the default 20 s.
const HEAVY = 90_000;

describe('MarkdownStream', () => {
  for (const [name, text] of Object.entries(TRICKY)) {
    it(`equals rendering the whole text at every step: ${name}`, () => {
      stream(text);
    });
  }

  it('equals a whole render when pieces of a few tokens arrive, and keeps the open end small', () => {
    const blocks = Object.values(TRICKY).join('\n\n');
    const text = Array.from({ length: 3 }, (_, i) => `## Part ${i}\n\n${blocks}`).join('\n\n');
    const cuts: number[] = [];
    for (let at = 0; at < text.length; at += 7 + (at % 11)) cuts.push(at);
    const { open, settledSteps } = stream(text, cuts);
    expect(settledSteps).toBeGreaterThan(20);
    expect(open.length).toBeLessThan(renderMarkdown(text).length / 10);
  }, HEAVY);

  it('renders the whole text when it has reference definitions (they change links before them)', () => {
    stream('See [the docs][d] and [more].\n\nMore text.\n\nAnd more.\n\n[d]: https://example.com/docs\n[more]: https://example.com/more\n');
  });

  it('renders the whole text when it has carriage returns', () => {
    stream('one\r\n\r\ntwo\r\n```\r\ncode\r\n```\r\n\r\nthree');
  });

  it('starts afresh when the text is not a continuation', () => {
    const renderer = new MarkdownStream();
    renderer.update('# One\n\nfirst paragraph\n\nsecond\n\nthird');
    const update = renderer.update('# Two\n\nother');
    expect(update.reset).toBe(true);
    expect(update.settled + update.open).toBe(renderMarkdown('# Two\n\nother'));
    // Also after a text that had to be rendered whole: the next one is incremental again.
    renderer.update('[a]: https://example.com\n\nx');
    const first = renderer.update('# Three\n\npara\n\nmore\n\nend');
    expect(first.reset).toBe(true);
    expect(first.settled + first.open).toBe(renderMarkdown('# Three\n\npara\n\nmore\n\nend'));
    const next = renderer.update('# Three\n\npara\n\nmore\n\nend.');
    expect(next.reset).toBe(false);
  });

  it('equals the whole render at every step of random block sequences (fuzz)', () => {
    const lines = ['', '', 'para text', 'more *words* here', '- item', '  - nested', '1. one', '2. two', '3) three', '* star', '> quote', '> > deep', '>', '```', '```js', '~~~', '    indented', '| a | b |', '|---|---|', '|--', '| 1 | 2 |', '---', '===', '# head', '***', '  continued', '+ plus', '<b>x</b>', 'x | y', ':--|--:'];
    let seed = 12345;
    const rand = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
    for (let doc = 0; doc < 120; doc++) {
      const n = 4 + Math.floor(rand() * 10);
      const text = Array.from({ length: n }, () => lines[Math.floor(rand() * lines.length)]).join('\n') + (rand() < 0.5 ? '\n' : '');
      const cuts: number[] = [];
      for (let end = 1; end < text.length; end += 1 + Math.floor(rand() * 3)) cuts.push(end);
      stream(text, cuts);
    }
  }, HEAVY);

  it('keeps the output sanitized', () => {
    const { settled, open } = stream('<img src=x onerror=alert(1)>\n\n[x](javascript:alert(1))\n\n<script>alert(1)</script>\n\nend');
    expect(settled + open).not.toMatch(/<img|<script|href="javascript/i);
  });
});
