// get_tab_content's reader it injects (on happy-dom), and the re-read of a tab's PDF (a real HTTP
// server); the pages it may not read are in tests/unit/tab-access.test.ts.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { PDF_LIMITS } from '@/core/extract/pdf-reading';
import { fetchTabPdf } from '@/plugins/tabs/pdf';
import { makePdf } from '@/tests/fixtures/make-pdf.mjs';
import { readPage } from '@/core/extract/page';
import { cleanListedElements, MAX_LISTED_ELEMENTS } from '@/plugins/tabs/content';
import { tabsSchemas } from '@/plugins/tabs/schemas';
import { parseHtml } from '@/tests/unit/helpers/dom';

describe('the injected reader', () => {
  test('an HTML page: its Markdown, title and what part was read', () => {
    const doc = parseHtml('<html><head><title>Inbox (3)</title></head><body><nav>Menu items here</nav><main><h2>Messages</h2><p>Three new messages are waiting for you in the inbox, the oldest from Tuesday.</p><p>Open one to read it, or archive them all at once with the button below the list.</p><p>Messages older than thirty days are moved to the archive automatically every night.</p></main></body></html>');
    const reading = readPage(doc, {});
    expect(reading).toMatchObject({ ok: true, title: 'Inbox (3)', usedSelector: 'main' });
    expect(reading.ok && reading.markdown).toContain('Three new messages');
    expect(reading.ok && reading.markdown).not.toContain('Menu items here');
  });

  test('a selector that matches nothing is reported as a selector error', () => {
    expect(readPage(parseHtml('<p>x</p>'), { selector: '#nope' })).toMatchObject({ ok: false, kind: 'selector' });
  });
});

test('get_tab_content keeps the contract\'s parameters', () => {
  // The contract's four, and element_refs (optional: element references on request, issue 10).
  expect(Object.keys(tabsSchemas.get_tab_content.properties)).toEqual(['tab_id', 'selector', 'element_refs', 'prompt', 'max_length']);
  expect(tabsSchemas.get_tab_content.required).toEqual(['tab_id']);
});

describe('element_refs: the listed elements', () => {
  test('are page data: checked for shape, cut in size and count', () => {
    const good = { ref: '@abcd12.3', tag: 'button', id: 'buy', text: 'Buy now', selector: '#buy' };
    expect(cleanListedElements([good, { ...good, ref: 'not-a-ref' }, { tag: 'a' }, null, 'x'])).toEqual([good]);
    expect(cleanListedElements({ not: 'a list' })).toEqual([]);
    const long = cleanListedElements([{ ...good, text: 'x'.repeat(1000), selector: 's'.repeat(1000) }])[0]!;
    expect(long.text!.length).toBe(100);
    expect(long.selector.length).toBe(400);
    expect(cleanListedElements(Array.from({ length: 1000 }, () => good))).toHaveLength(MAX_LISTED_ELEMENTS);
  });

  test('are asked for with element_refs', () => {
    expect(tabsSchemas.get_tab_content.properties.element_refs.type).toBe('boolean');
  });
});

describe("a tab's PDF, fetched again by its address", () => {
  const PDF = makePdf(['Minutes of the meeting']);
  let server: http.Server;
  let base = '';
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const send = (status: number, headers: Record<string, string>, body: string | Buffer = '') => {
        res.writeHead(status, headers);
        res.end(body);
      };
      if (req.url === '/minutes.pdf') return send(200, { 'content-type': 'application/pdf' }, PDF);
      if (req.url === '/minutes') return send(200, { 'content-type': 'application/octet-stream' }, PDF);
      if (req.url === '/page') return send(200, { 'content-type': 'text/html' }, `<!doctype html><p>${'a page, not a PDF '.repeat(5000)}</p>`);
      if (req.url === '/private.pdf') return send(403, { 'content-type': 'text/plain' }, 'no');
      if (req.url === '/moved.pdf') return send(302, { location: '/minutes.pdf' });
      if (req.url === '/huge.pdf') return send(200, { 'content-type': 'application/pdf', 'content-length': String(PDF_LIMITS.maxBytes + 1) }, PDF.subarray(0, 0));
      send(404, { 'content-type': 'text/plain' }, 'no route');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  const signal = new AbortController().signal;

  test('a PDF by its type or by its bytes: the bytes', async () => {
    for (const path of ['/minutes.pdf', '/minutes']) {
      const bytes = await fetchTabPdf(7, `${base}${path}`, signal);
      expect(Buffer.from(bytes!).equals(PDF)).toBe(true);
    }
  });

  test('an address that is not a PDF: null, without reading the rest of it', async () => {
    await expect(fetchTabPdf(7, `${base}/page`, signal)).resolves.toBeNull();
  });

  test('refusals, redirects and PDFs over the bound are errors that name the tab', async () => {
    await expect(fetchTabPdf(7, `${base}/private.pdf`, signal)).rejects.toThrow(/^Tab 7 shows .*private\.pdf in a viewer extensions cannot read, and fetching that address again for its text answered HTTP 403/);
    await expect(fetchTabPdf(7, `${base}/moved.pdf`, signal)).rejects.toThrow(/fetching that address again for its text failed \(.*; a redirect is not followed\)/);
    await expect(fetchTabPdf(7, `${base}/huge.pdf`, signal)).rejects.toThrow(/huge\.pdf is a PDF larger than 20\.0 MB/);
  });
});
