// Runs in a real Chromium page (bundled by bench/extract.mjs): times Sidequest's extraction and
// two baselines on each corpus page, and returns their Markdown for the text measures.
import { Readability } from '@mozilla/readability';
import TurndownService from 'turndown';
import { extractPage, setBase } from '@/core/extract';

export type MethodName = 'sidequest' | 'readability+turndown' | 'turndown(body)' | 'sidequest(rendered)';

const plainTurndown = new TurndownService();
const bodyTurndown = new TurndownService().remove(['script', 'style', 'noscript']);

/** A page parsed as `web_fetch` parses it: with a `<base>` for the address it came from. */
function parse(html: string, url = 'https://corpus.example/page/'): Document {
  const doc = new DOMParser().parseFromString(html, 'text/html');
  setBase(doc, url);
  return doc;
}

/** Each method takes a freshly parsed document (parsing is not timed) and returns Markdown. */
const METHODS: Record<Exclude<MethodName, 'sidequest(rendered)'>, (doc: Document, html: string, url: string) => string> = {
  sidequest: (doc, html, url) => extractPage(doc, { baseUrl: url, reparse: () => parse(html, url) }).markdown,
  'readability+turndown': (doc) => {
    const article = new Readability(doc).parse();
    return article?.content ? plainTurndown.turndown(article.content) : '';
  },
  'turndown(body)': (doc) => bodyTurndown.turndown(doc.body),
};

export interface PageRun {
  name: string;
  htmlChars: number;
  expectedText: string;
  results: Record<string, { ms: number[]; markdown: string; error?: string }>;
}

/** Runs every method `runs` times on one page; `frame` is a rendered copy for the live mode. */
export async function runPage(name: string, html: string, expectedHtml: string, runs: number, rendered: boolean): Promise<PageRun> {
  const url = `https://corpus.example/${name}/`;
  const expectedText = new DOMParser().parseFromString(expectedHtml, 'text/html').body.textContent ?? '';
  const results: PageRun['results'] = {};
  const methods = Object.entries(METHODS);
  for (const [method] of methods) results[method] = { ms: [], markdown: '' };
  // Interleaved: run r times each method in turn (rotating the order), so that a busy machine
  // slows every method alike.
  for (let r = 0; r < runs; r++) {
    for (let k = 0; k < methods.length; k++) {
      const [method, fn] = methods[(k + r) % methods.length]!;
      const result = results[method]!;
      if (result.error) continue;
      try {
        const doc = parse(html, url);
        const start = performance.now();
        result.markdown = fn(doc, html, url);
        result.ms.push(performance.now() - start);
      } catch (error) {
        result.error = String((error as Error)?.stack ?? error);
      }
    }
  }
  if (rendered) results['sidequest(rendered)'] = await runRendered(html, runs);
  return { name, htmlChars: html.length, expectedText, results };
}

/**
 * The `get_tab_content` path: the page rendered in an iframe (scripts off, as the saved pages'
 * scripts would only fail here), read live — copying the visible DOM included.
 */
async function runRendered(html: string, runs: number): Promise<{ ms: number[]; markdown: string; error?: string }> {
  const frame = document.createElement('iframe');
  frame.setAttribute('sandbox', 'allow-same-origin');
  frame.style.cssText = 'width:1280px;height:800px;position:absolute;left:-20000px;top:0';
  const loaded = new Promise((resolve) => frame.addEventListener('load', resolve, { once: true }));
  frame.srcdoc = html;
  document.body.append(frame);
  await loaded;
  const ms: number[] = [];
  let markdown = '';
  try {
    const doc = frame.contentDocument!;
    for (let i = 0; i < runs; i++) {
      const start = performance.now();
      markdown = extractPage(doc, { live: true }).markdown;
      ms.push(performance.now() - start);
    }
    return { ms, markdown };
  } catch (error) {
    return { ms, markdown, error: String((error as Error)?.stack ?? error) };
  } finally {
    frame.remove();
  }
}

