/**
 * What the background needs to read a PDF (the tools of plugins/web and plugins/tabs): the limits,
 * how a PDF is recognised, and `readPdf`, which runs the core's offscreen job (./pdf-jobs.ts: in
 * Chrome's offscreen document, in Firefox's background page itself). Kept apart from ./pdf.ts and
 * ./pdf-jobs.ts so the background bundles no pdf.js with it (build/offscreen-only.ts).
 */
import type { runOffscreenJob } from '@/core/offscreen/host';
import { bytesToBase64 } from '@/core/offscreen/bytes';
import { offscreenRef } from '@/core/offscreen/jobs';
import type { PdfText } from './pdf';
import type { pdfJobs } from './pdf-jobs';

export type { PdfText } from './pdf';

/** The bounds of every PDF reading. */
export const PDF_LIMITS = {
  /** A larger PDF is not read at all (its end, where the index is, would be missing). */
  maxBytes: 20 * 1024 * 1024,
  /** Pages read at most, from the first; the result says how many there are. */
  maxPages: 100,
  /** Reading stops after the page that passes this (the tools then cut to their own caps). */
  maxChars: 200_000,
  /** Parsing and reading the text stop after this long. */
  timeoutMs: 20_000,
} as const;

/** The MIME types servers give PDFs. */
export function isPdfType(mime: string): boolean {
  return mime === 'application/pdf' || mime === 'application/x-pdf';
}

const SIGNATURE = [0x25, 0x50, 0x44, 0x46, 0x2d]; // %PDF-

/** Whether bytes are a PDF: its header `%PDF-` in the first KiB (readers allow some junk before it). */
export function looksLikePdf(head: Uint8Array): boolean {
  const end = Math.min(head.length, 1024) - SIGNATURE.length;
  for (let i = 0; i <= end; i++) {
    if (SIGNATURE.every((b, j) => head[i + j] === b)) return true;
  }
  return false;
}

/** A PDF's size in words, for errors: "23.4 MB". */
export const megabytes = (bytes: number): string => `${(bytes / (1024 * 1024)).toFixed(1)} MB`;

/** The words for a PDF over the byte limit. */
export function tooLargeError(source: string, size?: number): Error {
  const limit = megabytes(PDF_LIMITS.maxBytes);
  return new Error(`${source} is a PDF larger than ${limit}${size ? ` (${megabytes(size)})` : ''}, more than Sidequest reads; it was not read. Look for a smaller version, or ask the user what it says.`);
}

/** The core's offscreen job group, by name (its code stays out of Chrome's background). */
export const pdfJobsRef = offscreenRef<typeof pdfJobs>('core-pdf');

/** The background's own bound, past the job's: an offscreen document that never answers. */
const ANSWER_GRACE_MS = 5_000;

/**
 * Reads a PDF's text as Markdown with `## Page N` markers, in the offscreen job (`runOffscreenJob`,
 * a plugin's `ctx.offscreen`). Throws an error that starts with `source` and says why: too large,
 * a password, damaged, no text layer, too slow.
 */
export async function readPdf(offscreen: typeof runOffscreenJob, bytes: Uint8Array, source: string): Promise<PdfText> {
  if (bytes.length > PDF_LIMITS.maxBytes) throw tooLargeError(source, bytes.length);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const unanswered = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the PDF reader did not answer within ${(PDF_LIMITS.timeoutMs + ANSWER_GRACE_MS) / 1000} s`)), PDF_LIMITS.timeoutMs + ANSWER_GRACE_MS);
  });
  try {
    const { maxPages, maxChars, timeoutMs } = PDF_LIMITS;
    return await Promise.race([offscreen(pdfJobsRef, 'pdfToMarkdown', { data: bytesToBase64(bytes), maxPages, maxChars, timeoutMs }), unanswered]);
  } catch (error) {
    throw new Error(`Could not read the PDF at ${source}: ${(error as Error)?.message ?? error}`);
  } finally {
    clearTimeout(timer);
  }
}
