import { limitText } from '@/core/extract/limit';
import { isPdfType, looksLikePdf, PDF_LIMITS, tooLargeError, type PdfText } from '@/core/extract/pdf-reading';
import { readBody } from '@/core/net/body';
import { untrusted } from '@/core/registry/untrusted';
import type { ReachHow, ReachVerdict, ToolErrorCode } from '@/core/registry/types';
import { resolvesLocal, type AddressProbe } from '@/core/net/address';
import { AddressError, parseWebAddress } from '@/core/net/web-address';
import { addressKind, LocalNetworkError, localNetworkKind } from '@/core/net/local-network';

/** What `web_fetch` returns: the contract's five fields, and `summarized` when a prompt was given. */
export interface WebFetchResult {
  url: string;
  content_type: string;
  /**
   * Markdown (HTML), the JSON text, or the text as it is, always inside the untrusted envelope
   * (`core/registry/untrusted.ts`): the page wrote it, the model must not take it as instructions.
   */
  content: string;
  truncated: boolean;
  final_url: string;
  /** Present and true when `content` is the model's summary under `prompt`. */
  summarized?: true;
  /** A PDF: how many pages it has, and how many were read (from the first; fewer when a limit stopped it). */
  pages?: number;
  pages_read?: number;
}

export interface WebFetchInput {
  url: string;
  prompt?: string;
  max_length?: number;
}

export interface WebFetchDeps {
  fetch: typeof fetch;
  /** HTML → Markdown of the main content (needs a DOM: the `extractHtml` job of plugins/web/offscreen.ts, see core/offscreen). */
  htmlToMarkdown(html: string, url: string): Promise<string>;
  /** A PDF → its text as Markdown with `## Page N` markers (core/extract/pdf-reading.ts `readPdf`); errors name `source`. Absent: PDFs are not read. */
  readPdf?(bytes: Uint8Array, source: string): Promise<PdfText>;
  /** Summarizes text under a prompt with the configured model. */
  summarize(request: { prompt: string; content: string; source: string; signal: AbortSignal }): Promise<string>;
  /** The request's time limit; 30 s unless a test shortens it. */
  timeoutMs?: number;
  /**
   * Whether a local-network address (see `local-network.ts`) may be fetched without asking: the
   * origins the user configured (the model providers'), the test-only list, the address the user
   * allowed for this call. Absent: none may.
   */
  allowLocal?(url: URL): boolean | Promise<boolean>;
  /**
   * What the browser tells about an address (core/net/address.ts): the addresses a name resolves to
   * (Firefox), and for each request the address that answered and where a redirect points
   * (browsers hide the target of a `redirect: 'manual'` answer from the fetch itself). Without a
   * watch a hidden redirect is not followed; with one, an answer whose address it did not see is
   * withheld.
   */
  probe?: AddressProbe;
  /**
   * The approval gate, for addresses the call reaches on its way (`ToolContext.reach`): every
   * redirect hop before it is requested, and a host whose address turned out to be on the user's
   * network. Absent (no agent loop): a local address is refused unless `allowLocal` allows it.
   */
  reach?(url: string, how: ReachHow): Promise<ReachVerdict>;
}

/** The gate said no to an address reached mid-call: the call fails with the gate's code and words. */
export class ReachRefusedError extends Error {
  override name = 'ReachRefusedError';
  constructor(
    readonly code: ToolErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** Redirects followed at most; each hop is checked like the first address. */
export const MAX_REDIRECTS = 10;

export const FETCH_TIMEOUT_MS = 30_000;
/** Bodies are read up to this size; a larger page is cut (and the result says so). A PDF: `PDF_LIMITS.maxBytes`, never cut. */
export const MAX_BODY_BYTES = 8 * 1024 * 1024;

type Kind = 'html' | 'json' | 'text' | 'pdf' | 'binary';

const TEXT_TYPES = /^(text\/|application\/(xml|javascript|x-javascript|ecmascript|x-yaml|yaml|toml|x-sh|sql|csv|x-ndjson|graphql|ld\+json)$)|\+xml$/i;
const JSON_TYPES = /^(application|text)\/(json|[\w.-]+\+json)$/i;
const HTML_TYPES = /^(text\/html|application\/xhtml\+xml)$/i;

/** The MIME type of a Content-Type header, lower case, without parameters. */
export function mimeType(header: string | null): string {
  const essence = (header ?? '').split(';')[0]!.trim().toLowerCase();
  // The server wrote the header, and the type reaches the model outside the envelope
  // (`content_type`, errors): only a real type/subtype is taken, anything else counts as none.
  return /^[a-z0-9!#$&^_.+-]{1,64}\/[a-z0-9!#$&^_.+-]{1,64}$/.test(essence) ? essence : '';
}

function charsetOf(header: string | null): string | undefined {
  return /charset\s*=\s*"?([\w.:-]+)/i.exec(header ?? '')?.[1];
}

function classify(mime: string, head: Uint8Array): Kind {
  // A PDF by its type, or by its bytes whatever the server called it.
  if (isPdfType(mime) || looksLikePdf(head)) return 'pdf';
  if (HTML_TYPES.test(mime)) return 'html';
  if (JSON_TYPES.test(mime)) return 'json';
  if (mime === 'text/plain' || !mime || mime === 'application/octet-stream') return sniff(head, mime);
  if (TEXT_TYPES.test(mime)) return 'text';
  return 'binary';
}

/** Control characters other than tab, line feed, form feed and carriage return: not text. */
function hasControlBytes(bytes: Uint8Array): boolean {
  return bytes.some((b) => b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0c && b !== 0x0d);
}

/** For a missing or vague Content-Type: binary if it has NUL bytes, else HTML, JSON or text by its start. */
function sniff(head: Uint8Array, mime: string): Kind {
  const sample = head.subarray(0, 1024);
  if (sample.includes(0)) return 'binary';
  const start = new TextDecoder().decode(sample).replace(/^\uFEFF/, '').trimStart().toLowerCase();
  if (mime === 'text/plain') return 'text';
  if (start.startsWith('<!doctype html') || start.startsWith('<html') || /^<(head|body|meta|title)\b/.test(start)) return 'html';
  if (start.startsWith('{') || start.startsWith('[')) return 'json';
  // An octet-stream without NUL bytes in its first KiB is most likely text, but not certainly.
  return mime === 'application/octet-stream' && hasControlBytes(sample) ? 'binary' : 'text';
}

/** Decodes with the header's charset, else an HTML `<meta charset>`, else UTF-8. */
function decode(bytes: Uint8Array, header: string | null, kind: Kind): string {
  let label = charsetOf(header);
  if (!label && kind === 'html') {
    const head = new TextDecoder('latin1').decode(bytes.subarray(0, 2048));
    label = /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i.exec(head)?.[1];
  }
  try {
    return new TextDecoder(label ?? 'utf-8').decode(bytes);
  } catch {
    return new TextDecoder('utf-8').decode(bytes);
  }
}

/** Checks the URL the model gave: absolute, and http or https only. */
export function checkFetchUrl(raw: string): URL {
  try {
    return parseWebAddress(raw, 'web_fetch only fetches');
  } catch (error) {
    if (error instanceof AddressError && / only fetches /.test(error.message)) throw new Error(`${error.message} To read a tab that is open in the browser, read the tab instead.`);
    throw error;
  }
}

function describeNetworkError(url: URL, error: unknown): string {
  const message = (error as Error)?.message ?? String(error);
  return `Could not fetch ${url.href}: the request failed before any answer (${message}). The address may be wrong, the site down, or the network off. Check the URL, or search for the page with web_search.`;
}

/**
 * `web_fetch`: one GET of an http(s) URL (redirects followed, no cookies sent, 30 s at most),
 * then by type: HTML → the main content as Markdown, a PDF (by type or by its bytes) → its text
 * with `## Page N` markers, JSON → parsed, text → as it is, anything else → an error naming the type. With `prompt`, the model summarizes the content under it.
 */
export async function webFetch(input: WebFetchInput, signal: AbortSignal, deps: WebFetchDeps): Promise<WebFetchResult> {
  const url = checkFetchUrl(input.url);
  const limitMs = deps.timeoutMs ?? FETCH_TIMEOUT_MS;
  // The time limit is the network's: it stops while the user is asked about an address.
  const timeout = new Deadline(limitMs);
  let response: Response;
  try {
    response = await fetchHops(url, AbortSignal.any([signal, timeout.signal]), deps, timeout);
  } catch (error) {
    timeout.stop();
    if (error instanceof LocalNetworkError || error instanceof ReachRefusedError || signal.aborted) throw error;
    if (timeout.signal.aborted) throw new Error(`${url.href} did not answer within ${limitMs / 1000} s, so the request was stopped. The site may be slow or down: try again later or use another source.`);
    throw new Error(describeNetworkError(url, error));
  }
  const finalUrl = (response as Response & { hopUrl?: string }).hopUrl ?? (response.url || url.href);
  if (!response.ok) {
    void response.body?.cancel().catch(() => undefined);
    const what = response.status === 404 ? 'the page does not exist' : response.status === 401 || response.status === 403 ? 'the site refuses access (it may need a login, which web_fetch does not have; if the page is open in a tab, read the tab instead)' : response.status >= 500 ? 'the site had a server error; try again later' : 'the request was refused';
    // The status code only: the reason phrase after it is the server's own words.
    throw new Error(`${finalUrl} answered HTTP ${response.status}: ${what}.`);
  }
  const header = response.headers.get('content-type');
  const mime = mimeType(header);
  const declared = Number(response.headers.get('content-length'));
  if (isPdfType(mime) && declared > PDF_LIMITS.maxBytes) {
    timeout.stop();
    void response.body?.cancel().catch(() => undefined);
    throw tooLargeError(finalUrl, declared);
  }
  let body: { bytes: Uint8Array; cut: boolean };
  try {
    // A PDF is read whole or not at all (a byte past the limit tells it is larger).
    body = await readBody(response, (head) => (isPdfType(mime) || looksLikePdf(head) ? PDF_LIMITS.maxBytes + 1 : MAX_BODY_BYTES));
  } catch (error) {
    if (signal.aborted) throw error;
    if (timeout.signal.aborted) throw new Error(`${finalUrl} was still sending after ${limitMs / 1000} s, so the request was stopped. Try again later or use another source.`);
    throw new Error(`The answer from ${finalUrl} broke off while it was read (${(error as Error)?.message ?? error}). Try again.`);
  } finally {
    timeout.stop();
  }
  const kind = classify(mime, body.bytes);
  const contentType = mime || (kind === 'html' ? 'text/html' : kind === 'json' ? 'application/json' : kind === 'text' ? 'text/plain' : 'application/octet-stream');
  if (kind === 'binary') {
    throw new Error(`${finalUrl} is ${contentType}, not a text document, so web_fetch cannot read it. It reads HTML pages, PDFs, JSON and plain text.`);
  }
  if (kind === 'pdf') return fetchedPdf(input, finalUrl, body, signal, deps);
  const raw = decode(body.bytes, header, kind);

  let content: unknown;
  let text: string;
  if (kind === 'html') {
    text = await deps.htmlToMarkdown(raw, finalUrl);
    content = text;
  } else if (kind === 'json') {
    try {
      content = JSON.parse(raw);
      text = JSON.stringify(content);
    } catch {
      // Declared JSON but is not (or was cut): give the text itself.
      content = raw;
      text = raw;
    }
  } else {
    content = raw;
    text = raw;
  }

  if (input.prompt?.trim()) {
    const summary = await deps.summarize({ prompt: input.prompt.trim(), content: text, source: finalUrl, signal });
    const limited = limitText(summary, input.max_length);
    return { url: input.url, content_type: contentType, content: untrusted(`summary of ${finalUrl}`, limited.text), truncated: limited.truncated || body.cut, final_url: finalUrl, summarized: true };
  }

  // Parsed JSON is given as its compact text (the parse proved it is JSON); text as it is.
  const limited = limitText(typeof content === 'string' ? content : text, input.max_length);
  return { url: input.url, content_type: contentType, content: untrusted(finalUrl, limited.text), truncated: limited.truncated || body.cut, final_url: finalUrl };
}

/** A fetched PDF → its text as Markdown with page markers (core/extract/pdf-reading.ts), or the summary of it. */
async function fetchedPdf(input: WebFetchInput, finalUrl: string, body: { bytes: Uint8Array; cut: boolean }, signal: AbortSignal, deps: WebFetchDeps): Promise<WebFetchResult> {
  if (body.cut) throw tooLargeError(finalUrl);
  if (!deps.readPdf) throw new Error(`${finalUrl} is a PDF, which web_fetch cannot read here.`);
  const pdf = await deps.readPdf(body.bytes, finalUrl);
  const pages = { pages: pdf.pages, pages_read: pdf.pagesRead };
  const partial = pdf.pagesRead < pdf.pages;
  if (input.prompt?.trim()) {
    const summary = await deps.summarize({ prompt: input.prompt.trim(), content: pdf.markdown, source: finalUrl, signal });
    const limited = limitText(summary, input.max_length);
    return { url: input.url, content_type: 'application/pdf', content: untrusted(`summary of ${finalUrl}`, limited.text), truncated: limited.truncated || partial, final_url: finalUrl, summarized: true, ...pages };
  }
  const limited = limitText(pdf.markdown, input.max_length);
  return { url: input.url, content_type: 'application/pdf', content: untrusted(finalUrl, limited.text), truncated: limited.truncated || partial, final_url: finalUrl, ...pages };
}

/** A time limit that can stop while the user is asked (the clock of the network only). */
class Deadline {
  private readonly controller = new AbortController();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private left: number;
  private since = 0;

  constructor(ms: number) {
    this.left = ms;
    this.resume();
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  pause(): void {
    if (this.timer === undefined) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.left -= Date.now() - this.since;
  }

  resume(): void {
    if (this.timer !== undefined || this.controller.signal.aborted) return;
    this.since = Date.now();
    this.timer = setTimeout(() => this.controller.abort(new DOMException('The time limit passed.', 'TimeoutError')), Math.max(0, this.left));
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}

/** What one hop's checks found out, for the answer's check. */
interface HopState {
  /** The address may be reached without asking (configured, allowed by the tests, the user's yes). */
  cleared: boolean;
}

/**
 * The checks of one address before it is requested: a local name or a name that resolves to a
 * local address (Firefox) is requested only when allowed (`allowLocal`) or when the gate says yes;
 * every redirect hop goes to the gate (`reach`) whatever its address, which applies the outbound
 * rule to it. Without a gate, local addresses are refused and public hops pass.
 */
async function checkBeforeRequest(url: URL, deps: WebFetchDeps, clock: Deadline, from?: string): Promise<HopState> {
  const nameKind = localNetworkKind(url);
  const allowed = async () => Boolean(await deps.allowLocal?.(url));
  let cleared = nameKind !== null && (await allowed());
  if (nameKind && !cleared && !(from && deps.reach)) throw new LocalNetworkError(url.href, nameKind, from);
  const resolved = nameKind ? null : await resolvesLocal(deps.probe, url.hostname);
  if (resolved && (await allowed())) cleared = true;
  // The address to name on the card: the one the name resolved to, or the host itself when it is
  // an IP address on the user's network (a redirect to http://192.168.1.1/).
  const literal = nameKind && !cleared && addressKind(url.hostname) ? url.hostname.replace(/^\[|\]$/g, '') : undefined;
  const localAddress = resolved && !cleared ? resolved.ip : literal;
  if (!deps.reach) {
    if (resolved && !cleared) throw new LocalNetworkError(url.href, resolved.kind, from, resolved.ip);
    return { cleared };
  }
  if (from || localAddress) {
    await askGate(url, { ...(from ? { redirectFrom: from } : {}), ...(localAddress ? { localAddress } : {}) }, deps, clock);
    // A yes to a local name or address is the user's: the answer from there is theirs to read.
    if (nameKind || localAddress) cleared = true;
  }
  return { cleared };
}

/**
 * The check of an answer: where it came from (the browser's report). An answer from a local
 * address that was not cleared before the request (Chrome cannot resolve first) is withheld until
 * the gate says yes; without a gate it is refused unless allowed.
 */
async function checkAnswer(url: URL, ip: string | null, state: HopState, deps: WebFetchDeps, clock: Deadline, from?: string): Promise<void> {
  if (state.cleared) return;
  if (ip === null) {
    throw new Error(`The browser did not report which address answered ${url.href}, so its answer was withheld: web_fetch reads an answer only once it knows it does not come from the user's own network. Try again.`);
  }
  const kind = addressKind(ip);
  if (!kind || (await deps.allowLocal?.(url))) return;
  if (!deps.reach) throw new LocalNetworkError(url.href, kind, from, ip, true);
  await askGate(url, { ...(from ? { redirectFrom: from } : {}), localAddress: ip }, deps, clock);
}

async function askGate(url: URL, how: ReachHow, deps: WebFetchDeps, clock: Deadline): Promise<void> {
  clock.pause();
  let verdict: ReachVerdict;
  try {
    verdict = await deps.reach!(url.href, how);
  } finally {
    clock.resume();
  }
  if (!verdict.ok) throw new ReachRefusedError(verdict.code, verdict.error);
}

/**
 * GETs `url`, following redirects itself (at most `MAX_REDIRECTS`) so that every hop's address
 * is checked before it is requested: a public page must not redirect the agent into the user's
 * network, nor carry data to a site the gate would ask about. Chromium and Firefox hide a
 * redirect's target from extensions (an `opaqueredirect` answer, no Location): there the target
 * comes from the probe's watch, and a redirect whose target nobody saw is not followed. Every
 * answer's address is checked too, where the browser reports it.
 */
async function fetchHops(first: URL, signal: AbortSignal, deps: WebFetchDeps, clock: Deadline): Promise<Response> {
  const init: RequestInit = {
    method: 'GET',
    redirect: 'manual',
    // The agent must not act with the user's sessions on a URL it was handed: no cookies.
    credentials: 'omit',
    // Every answer comes from the network, so the browser reports its address (a cached one has none).
    cache: 'no-store',
    headers: { Accept: 'text/html,application/xhtml+xml,application/json;q=0.9,text/plain;q=0.8,application/pdf;q=0.8,*/*;q=0.5' },
    signal,
  };
  let url = first;
  let from: string | undefined;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    const state = await checkBeforeRequest(url, deps, clock, from);
    const watch = deps.probe?.watch?.(url.href);
    let location: string | null;
    try {
      const response = await deps.fetch(url.href, init);
      // Where the answer came from, before anything of it is used (its body, its redirect).
      if (watch) {
        await checkAnswer(url, await watch.address(), state, deps, clock, from).catch((error: unknown) => {
          void response.body?.cancel().catch(() => undefined);
          throw error;
        });
      }
      if (response.type === 'opaqueredirect') {
        location = (await watch?.location()) ?? null;
        if (location === null) {
          throw new Error(`${url.href} answered with a redirect whose target the browser did not show, so web_fetch did not follow it: it checks every address before requesting it. If you know where the page moved, fetch that address.`);
        }
      } else {
        location = response.status >= 300 && response.status < 400 ? response.headers.get('location') : null;
        if (location === null) {
          // Where the response came from, for `final_url` (a Response made by hand has no url).
          return Object.assign(response, { hopUrl: response.url || url.href });
        }
        void response.body?.cancel().catch(() => undefined);
      }
    } finally {
      watch?.stop();
    }
    let next: URL;
    try {
      next = new URL(location, url);
    } catch {
      throw new Error(`${url.href} redirected to an address that is not valid (the server's Location header is not repeated here: the server wrote it).`);
    }
    if (next.protocol !== 'http:' && next.protocol !== 'https:') {
      throw new Error(`${url.href} redirected to a ${next.protocol} address, which web_fetch does not follow.`);
    }
    from = url.href;
    url = next;
  }
  throw new Error(`${first.href} redirected more than ${MAX_REDIRECTS} times, so web_fetch stopped following it.`);
}
