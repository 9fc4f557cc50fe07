import en from '#locales/en.json';
import { addCatalog } from './catalog';

/**
 * English, present at once: imported for its effect by the contexts that render `Said` words for
 * the model, traces, exports and logs (the background, Chrome's offscreen document). They speak no
 * other language; the pages load theirs (`./load`).
 */
addCatalog('en', en);
