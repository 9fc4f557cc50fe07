import { markdownIt, renderMarkdown, sanitizeMarkdownHtml } from './markdown';

type Token = ReturnType<typeof markdownIt.parse>[number];
type Env = Parameters<typeof markdownIt.parse>[1];

/** What changed since the previous `MarkdownStream.update`, as sanitized HTML. */
export interface MarkdownUpdate {
  /** Drop everything shown: `settled` starts afresh (the text was not a continuation, or is rendered whole). */
  reset: boolean;
  /** Finished blocks to add after the ones kept so far; they never change again (may be empty). */
  settled: string;
  /** The open end of the text (the blocks that may still change), replacing the previous open end. */
  open: string;
}

/**
 * Renders a growing Markdown text (an answer being streamed) so that each update costs about the
 * size of its open end rather than of the whole text: the blocks that can no longer change are
 * rendered once ("settled") and kept; only the rest is rendered again.
 *
 * Settled HTML followed by the open end's HTML is always exactly `renderMarkdown(text)`. A block is
 * settled once the next top-level block has started on a complete line and the line after that is
 * complete too: markdown-it decides where a block ends from that line and, for a table
 * interrupting a paragraph, the one after it; nothing later can move that end (a fence that is
 * still open runs to the end of the text, so it is the last block). Reference definitions change
 * links anywhere in the text, before them too, and carriage returns change line numbering: a text
 * with either is rendered whole each time.
 */
export class MarkdownStream {
  private settledText = '';
  private whole = false;
  private last = '';

  update(text: string): MarkdownUpdate {
    let reset = false;
    if (!text.startsWith(this.last)) {
      // Not a continuation (another text, or a shorter snapshot): start afresh.
      this.settledText = '';
      this.whole = false;
      reset = true;
    }
    this.last = text;
    const tail = text.slice(this.settledText.length);
    if (!this.whole && /[\r\0]/.test(tail)) this.whole = true;
    if (this.whole) return this.renderWhole(text);

    const env: Env = {};
    const tokens = markdownIt.parse(tail, env);
    if (env.references && Object.keys(env.references).length > 0) {
      this.whole = true;
      return this.renderWhole(text);
    }

    const cut = settledCut(tokens, tail);
    const render = (part: Token[]) => (part.length ? sanitizeMarkdownHtml(markdownIt.renderer.render(part, markdownIt.options, env)) : '');
    if (!cut) return { reset, settled: '', open: render(tokens) };
    this.settledText += tail.slice(0, cut.offset);
    return { reset, settled: render(tokens.slice(0, cut.index)), open: render(tokens.slice(cut.index)) };
  }

  private renderWhole(text: string): MarkdownUpdate {
    this.settledText = '';
    return { reset: true, settled: '', open: renderMarkdown(text) };
  }
}

/** Where the settled blocks of `tail` end: a token index and a character offset, or undefined. */
function settledCut(tokens: Token[], tail: string): { index: number; offset: number } | undefined {
  let completeLines = 0;
  for (let i = tail.indexOf('\n'); i >= 0; i = tail.indexOf('\n', i + 1)) completeLines++;
  // Block starts, latest first; tokens[0] opens the first block, which has nothing before it.
  for (let index = tokens.length - 1; index > 0; index--) {
    const token = tokens[index]!;
    if (token.level !== 0 || token.nesting === -1 || !token.map) continue;
    const line = token.map[0];
    if (line + 2 > completeLines) continue;
    let offset = 0;
    for (let n = 0; n < line; n++) offset = tail.indexOf('\n', offset) + 1;
    return { index, offset };
  }
  return undefined;
}
