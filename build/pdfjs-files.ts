/**
 * pdf.js ships as two files of the extension, copied as they are from `pdfjs-dist` (its modern,
 * minified build): `pdfjs/pdf.min.mjs`, which the core's PDF job imports by its extension URL when
 * the first PDF comes, and `pdfjs/pdf.worker.min.mjs`, the worker it parses in
 * (core/extract/pdf-jobs.ts names both). Not bundled: Firefox's MV2 background is one script
 * without chunks, where a bundled pdf.js (and its worker, as a data: URL) would be loaded at every
 * start; as files, both browsers load them only to read a PDF.
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** The files a build adds (`build:publicAssets` in wxt.config.ts): where each comes from and goes. */
export function pdfjsFiles(): { absoluteSrc: string; relativeDest: string }[] {
  return ['pdf.min.mjs', 'pdf.worker.min.mjs'].map((name) => ({
    absoluteSrc: require.resolve(`pdfjs-dist/build/${name}`),
    relativeDest: `pdfjs/${name}`,
  }));
}
