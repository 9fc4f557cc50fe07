import workerUrl from 'pdfjs-dist/build/pdf.worker.min.mjs?url';
import { base64ToBytes } from '@/core/offscreen/bytes';
import { defineOffscreenGroup } from '@/core/offscreen/jobs';
import { pdfToMarkdown, type PdfText } from './pdf';

/**
 * The core's offscreen job: PDF → Markdown (./pdf.ts), for any plugin that reads a PDF
 * (`readPdf`, ./pdf-reading.ts). It runs where there is a `Worker` and a DOM's geometry
 * (`DOMMatrix`, which pdf.js needs as it loads): Firefox's background page, Chrome's offscreen
 * document. pdf.js parses in its worker, shipped as an extension asset (`?url`: copied as it is
 * into the build), one worker a reading, ended when it is done.
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
        worker: () => new Worker(new URL(workerUrl, location.href), { type: 'module' }),
      });
    },
  },
});
