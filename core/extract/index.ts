export { extractPage, pageTitle, setBase } from './extract';
export type { Extracted, ExtractMethod, ExtractOptions } from './extract';
export { cssPath, SelectorError } from './selectors';
export { copyVisible } from './visible';
export { createMarkdownConverter, absoluteUrl, withoutTracking, tidy } from './markdown';
export { limitText, DEFAULT_MAX_LENGTH, MAX_LENGTH_CAP } from './limit';
