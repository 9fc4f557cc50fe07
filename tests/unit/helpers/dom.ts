import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { Window } from 'happy-dom';

/**
 * Every request a window made by `createWindow` tried to send (none should: the loads are
 * switched off, and any request that gets through anyway is answered here, not sent).
 */
export const outsideRequests: string[] = [];

/**
 * A DOM for unit tests that run in Node: happy-dom, with every network load and script switched
 * off (the saved pages refer to styles, scripts and images on the web).
 */
export function createWindow(url = 'https://example.com/'): Window {
  return new Window({
    url,
    settings: {
      disableJavaScriptEvaluation: true,
      disableJavaScriptFileLoading: true,
      disableCSSFileLoading: true,
      disableIframePageLoading: true,
      disableComputedStyleRendering: true,
      handleDisabledFileLoadingAsSuccess: true,
      fetch: {
        interceptor: {
          beforeAsyncRequest: async ({ request, window }) => {
            outsideRequests.push(request.url);
            return new window.Response('', { status: 404 });
          },
          beforeSyncRequest: ({ request }) => {
            outsideRequests.push(request.url);
          },
        },
      },
    },
  });
}

const window = createWindow();

/** Waits until the window has nothing left to load or run. */
export async function settle(): Promise<void> {
  await window.happyDOM.waitUntilComplete();
}

/** Parses HTML as DOMParser does in a browser. */
export function parseHtml(html: string): Document {
  return new window.DOMParser().parseFromString(html, 'text/html') as unknown as Document;
}

/** The project root. */
export const ROOT = path.resolve(__dirname, '../../..');

/**
 * A few saved pages kept in the project (tests/fixtures/corpus; its README gives each page's
 * source and licence), so the tests that read real pages run in a plain clone too.
 */
export const LOCAL_CORPUS = path.join(ROOT, 'tests/fixtures/corpus');
export const LOCAL_PAGES = readdirSync(LOCAL_CORPUS, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

/** The full corpus next to the project (../shared/corpus/pages), on machines that have it. */
export const SHARED_CORPUS = path.resolve(ROOT, '../shared/corpus/pages');
export const hasSharedCorpus = existsSync(SHARED_CORPUS);

/** The folder of a saved page: the project's copy if it has one, else the shared corpus's. */
export function corpusPage(name: string): string {
  const local = path.join(LOCAL_CORPUS, name);
  return existsSync(local) ? local : path.join(SHARED_CORPUS, name);
}

/**
 * The pages a corpus test runs on: `local` (by default every page in the project) always, and the
 * shared corpus's `shared` pages too where that corpus exists; each page once.
 */
export function corpusPages(shared: readonly string[], local: readonly string[] = LOCAL_PAGES): string[] {
  return [...new Set([...local, ...(hasSharedCorpus ? shared : [])])];
}
