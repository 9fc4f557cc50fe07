import { base64ToBytes } from '@/core/offscreen/bytes';
import { defineOffscreenGroup } from '@/core/offscreen/jobs';
import { pdfToMarkdown, type PdfJs, type PdfText } from './pdf';

/** pdf.js's two files in the extension (copied there by build/pdfjs-files.ts), on the origin of the page that runs the job. */
const PDFJS = '/pdfjs/pdf.min.mjs';
const PDFJS_WORKER = '/pdfjs/pdf.worker.min.mjs';

/**
 * The core's offscreen job: PDF → Markdown (./pdf.ts), for any plugin that reads a PDF
 * (`readPdf`, ./pdf-reading.ts). It runs where there is a `Worker` and a DOM's geometry
 * (`DOMMatrix`, which pdf.js needs as it loads): Firefox's background page, Chrome's offscreen
 * document. pdf.js is imported by its extension URL on first use and parses in its own worker,
 * one a reading, ended when it is done.
 */
export const pdfJobs = defineOffscreenGroup({
  name: 'core-pdf',
  runsHere: () => typeof Worker === 'function' && typeof DOMMatrix === 'function',
  jobs: {
    pdfToMarkdown({ data, maxPages, maxChars, timeoutMs }: { data: string; maxPages: number; maxChars: number; timeoutMs: number }): Promise<PdfText> {
      return pdfToMarkdown(base64ToBytes(data), {
        maxPages,
        maxChars,
        timeoutMs,
        pdfjs: () => import(/* @vite-ignore */ new URL(PDFJS, location.href).href) as Promise<PdfJs>,
        worker: () => new Worker(new URL(PDFJS_WORKER, location.href), { type: 'module' }),
      });
    },
  },
});
