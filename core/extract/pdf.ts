/**
 * PDF → Markdown with pdf.js (`pdfjs-dist`), one function for every reader: a fetched PDF, a tab
 * showing the browser's PDF viewer (both through the core's offscreen job, ./pdf-jobs.ts), and the
 * unit tests. Each page's text follows a marker line `## Page N` (1-based), the one page marker
 * everywhere.
 *
 * Bounded: the first `maxPages` pages are read (`pages` says how many there are), reading stops
 * once the text passes `maxChars`, and the whole reading stops after `timeoutMs` (the worker is
 * ended, so nothing keeps running). A PDF with no text on any page read, a password-protected one
 * and a broken one are errors with words for the model (`PdfError`).
 *
 * pdf.js comes from the caller (`pdfjs`): the extension's copy by URL (./pdf-jobs.ts), the
 * package in the unit tests; nothing here bundles it.
 */
import type { PDFDocumentLoadingTask, PDFWorker, TextItem } from 'pdfjs-dist/types/src/display/api';

/** pdf.js's module, as the `pdfjs-dist` package exports it. */
export type PdfJs = typeof import('pdfjs-dist');

/** The reading limits; see `PDF_LIMITS` (./pdf-reading.ts) for the values the tools use. */
export interface PdfOptions {
  /** Pages read at most, from the first. */
  maxPages: number;
  /** Reading stops after the page that brings the text past this many characters. */
  maxChars: number;
  /** The whole reading (parse and text) stops after this long. */
  timeoutMs: number;
  /** Loads pdf.js (once: the module is cached by whoever imports it). */
  pdfjs: () => Promise<PdfJs>;
  /**
   * Makes the worker pdf.js parses in (an extension asset: ./pdf-jobs.ts). Absent: pdf.js's own
   * choice (in Node, the tests, its in-thread "fake worker").
   */
  worker?: () => Worker;
}

/** What a reading gives: the Markdown, and how much of the PDF it covers. */
export interface PdfText {
  /** Each read page as `## Page N`, a blank line, its text (or a note that the page has none). */
  markdown: string;
  /** The PDF's pages. */
  pages: number;
  /** Pages read, from the first: fewer than `pages` when a limit stopped the reading. */
  pagesRead: number;
}

export type PdfErrorKind = 'password' | 'broken' | 'no-text' | 'timeout';

/** A PDF that cannot be read, with words for the model (the caller adds where it came from). */
export class PdfError extends Error {
  override name = 'PdfError';
  constructor(
    readonly kind: PdfErrorKind,
    message: string,
  ) {
    super(message);
  }
}

/** The marker line before each page's text. */
export const pageMarker = (n: number): string => `## Page ${n}`;

const NO_TEXT_NOTE = '(no text on this page: an image or drawing only)';

/** A page's text items as lines: pdf.js marks the ends of lines (`hasEOL`). */
function pageText(items: readonly (TextItem | { type: string })[]): string {
  let text = '';
  for (const item of items) {
    if (!('str' in item)) continue;
    text += item.str;
    if (item.hasEOL) text += '\n';
  }
  return text
    .split('\n')
    .map((line) => line.replace(/[ \t\u00a0]+/g, ' ').trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** pdf.js's errors, told for the model. */
function explain(error: unknown): Error {
  if (error instanceof PdfError) return error;
  const name = (error as Error)?.name ?? '';
  const message = (error as Error)?.message ?? String(error);
  if (name === 'PasswordException') {
    return new PdfError('password', 'the PDF is protected by a password, and Sidequest does not open protected PDFs. Ask the user to open it and say what it shows.');
  }
  if (name === 'InvalidPDFException' || name === 'MissingPDFException' || name === 'FormatError' || /Invalid PDF|Invalid XRef|Bad XRef|not a PDF/i.test(message)) {
    return new PdfError('broken', `the file is damaged or not a complete PDF (${message.slice(0, 200)}), so its text cannot be read.`);
  }
  return new PdfError('broken', `the PDF could not be read (${message.slice(0, 200)}).`);
}

/**
 * Reads the text of a PDF as Markdown with page markers (see the module's comment). Throws a
 * `PdfError` when it cannot: a password, a damaged file, no text layer, the time limit.
 */
export async function pdfToMarkdown(data: Uint8Array, options: PdfOptions): Promise<PdfText> {
  let port: Worker | undefined;
  let worker: PDFWorker | undefined;
  let task: PDFDocumentLoadingTask | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = Date.now() + options.timeoutMs;
  const tooSlow = () => new PdfError('timeout', `reading the PDF took longer than ${Math.round(options.timeoutMs / 1000)} s, so it was stopped (it may be very large or complex).`);
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(tooSlow()), options.timeoutMs);
  });
  const read = async (): Promise<PdfText> => {
    const pdfjs = await options.pdfjs();
    if (options.worker) {
      port = options.worker();
      worker = pdfjs.PDFWorker.create({ port });
    }
    task = pdfjs.getDocument({
      // pdf.js takes the buffer over (transfers it to the worker): it gets its own copy.
      data: new Uint8Array(data),
      ...(worker ? { worker } : {}),
      // Extension pages forbid eval (CSP): pdf.js must not even try it.
      isEvalSupported: false,
      // Text only: no fonts loaded into the page, no scripts, no XFA forms, errors only in the console.
      disableFontFace: true,
      useSystemFonts: false,
      enableXfa: false,
      stopAtErrors: false,
      verbosity: 0,
    });
    const doc = await task.promise;
    const pages = doc.numPages;
    const parts: string[] = [];
    let length = 0;
    let withText = 0;
    let pagesRead = 0;
    while (pagesRead < Math.min(pages, options.maxPages) && length <= options.maxChars) {
      // Between pages too: an in-thread worker (pdf.js's fake one) may leave no turn to the timer.
      if (Date.now() > deadline) throw tooSlow();
      const page = await doc.getPage(pagesRead + 1);
      const text = pageText((await page.getTextContent()).items);
      page.cleanup();
      pagesRead++;
      if (text) withText++;
      const part = `${pageMarker(pagesRead)}\n\n${text || NO_TEXT_NOTE}`;
      parts.push(part);
      length += part.length + 2;
    }
    if (pages > 0 && withText === 0) {
      const which = pagesRead === pages ? `${pages} page${pages === 1 ? '' : 's'}` : `${pages} pages, and the first ${pagesRead} read`;
      throw new PdfError('no-text', `the PDF has no text layer (${which} have only images or drawings, as a scanned document does), so there is no text to read. Sidequest does not recognize text in images.`);
    }
    return { markdown: parts.join('\n\n'), pages, pagesRead };
  };
  try {
    return await Promise.race([read(), timedOut]);
  } catch (error) {
    throw explain(error);
  } finally {
    clearTimeout(timer);
    // Ended whatever happened: a worker stuck in a page would never answer a polite destroy.
    port?.terminate();
    worker?.destroy();
    void task?.destroy().catch(() => undefined);
  }
}
