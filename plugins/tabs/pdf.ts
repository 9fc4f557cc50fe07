import { isPdfType, looksLikePdf, PDF_LIMITS, tooLargeError } from '@/core/extract/pdf-reading';
import { readBody } from '@/core/net/body';

/** The re-read of a tab's PDF gives up after this long (the reading itself has its own bound). */
export const TAB_PDF_FETCH_MS = 30_000;

/** The MIME type of a Content-Type header, lower case, without parameters. */
const mimeOf = (header: string | null) => (header ?? '').split(';')[0]!.trim().toLowerCase();

/**
 * A tab that shows the browser's PDF viewer (Chrome's and Firefox's keep the PDF's own address as
 * the tab's) cannot be read from inside: the PDF is fetched again by that address, as the user's
 * own read of the tab's site (their cookies apply, as in the tab). Redirects are not followed: the
 * address the tab shows is the one read. Gives the bytes, or null when the address does not answer
 * with a PDF (by type or by its first bytes); throws words for the model when the request fails or
 * the PDF is larger than Sidequest reads.
 */
export async function fetchTabPdf(tabId: number, url: string, signal: AbortSignal, fetcher: typeof fetch = fetch): Promise<Uint8Array | null> {
  const timeout = AbortSignal.timeout(TAB_PDF_FETCH_MS);
  let response: Response;
  try {
    response = await fetcher(url, { credentials: 'include', redirect: 'error', signal: AbortSignal.any([signal, timeout]) });
  } catch (error) {
    if (signal.aborted) throw error;
    const why = timeout.aborted ? `no answer within ${TAB_PDF_FETCH_MS / 1000} s` : ((error as Error)?.message ?? String(error));
    throw new Error(`Tab ${tabId} shows ${url} in a viewer extensions cannot read, and fetching that address again for its text failed (${why}; a redirect is not followed). Ask the user what it shows.`);
  }
  const mime = mimeOf(response.headers.get('content-type'));
  if (!response.ok) {
    void response.body?.cancel().catch(() => undefined);
    throw new Error(`Tab ${tabId} shows ${url} in a viewer extensions cannot read, and fetching that address again for its text answered HTTP ${response.status}. Ask the user what it shows.`);
  }
  const declared = Number(response.headers.get('content-length'));
  if (isPdfType(mime) && declared > PDF_LIMITS.maxBytes) {
    void response.body?.cancel().catch(() => undefined);
    throw tooLargeError(url, declared);
  }
  // Past the first chunk only for a PDF; a byte past the limit tells it is larger.
  const body = await readBody(response, (head) => (isPdfType(mime) || looksLikePdf(head) ? PDF_LIMITS.maxBytes + 1 : 1024));
  if (!looksLikePdf(body.bytes) && !isPdfType(mime)) return null;
  if (body.cut) throw tooLargeError(url);
  return body.bytes;
}
