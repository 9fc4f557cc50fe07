import { existsSync } from 'node:fs';
import path from 'node:path';
import { Window } from 'happy-dom';

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
    },
  });
}

const window = createWindow();

/** Parses HTML as DOMParser does in a browser. */
export function parseHtml(html: string): Document {
  return new window.DOMParser().parseFromString(html, 'text/html') as unknown as Document;
}

/** The project root, and the saved pages next to it (../shared/corpus/pages); they are not copied into the project. */
export const ROOT = path.resolve(__dirname, '../../..');
export const CORPUS = path.resolve(ROOT, '../shared/corpus/pages');
export const hasCorpus = existsSync(CORPUS);
