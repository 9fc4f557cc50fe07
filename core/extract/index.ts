export { extractPage, copyVisible, cssPath, pageTitle, SelectorError, setBase } from './extract';
export type { Extracted, ExtractMethod, ExtractOptions } from './extract';
export { createMarkdownConverter, absoluteUrl, withoutTracking, tidy } from './markdown';
export { limitText, DEFAULT_MAX_LENGTH, MAX_LENGTH_CAP } from './limit';
