import type { ElementRefs } from '@/core/page/element-refs';

/** How read_page prints references (Playwright's `e12`), and the registry's own form. */
const SHORT = /^e(\d{1,9})$/;
const LONG = /^@([a-z0-9]{4,12})\.(\d{1,9})$/;

/** An error worded for the model; `stale` marks a reference from an earlier version of the page. */
export class RefError extends Error {
  constructor(
    message: string,
    readonly stale = false,
  ) {
    super(message);
    this.name = 'RefError';
  }
}

function staleError(shown: string, gone = false): RefError {
  const why = gone ? 'that element is gone: the page changed since you read it' : 'it navigated or reloaded since you read it';
  return new RefError(`The reference ${shown} is from an earlier version of the page (${why}): call read_page again for fresh references.`, true);
}

/**
 * The element a reference names: `e12` (as the outline prints it) or `@<token>.12`. `expectedToken`
 * is the document token the background last saw in this tab: when the page has another one now,
 * the reference is stale. Throws a `RefError` worded for the model (`stale: true` for stale ones).
 * References only: a CSS selector is refused (read_page's `selector` takes those).
 */
export function resolveRef(refs: ElementRefs, ref: string, expectedToken?: string): Element {
  const value = String(ref ?? '').trim();
  const short = SHORT.exec(value);
  const long = short ? null : LONG.exec(value);
  if (!short && !long) {
    const shown = JSON.stringify(value.slice(0, 60));
    throw new RefError(`${shown} is not a reference: read_page gives references like e12 (pass one of those, without brackets).`);
  }
  const number = short ? short[1]! : long![2]!;
  const shown = `e${number}`;
  if ((expectedToken && expectedToken !== refs.token) || (long && long[1] !== refs.token)) throw staleError(shown);
  let element: Element;
  try {
    element = refs.resolve(`@${refs.token}.${number}`);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (/stale|removed/i.test(message)) throw staleError(shown, true);
    throw new RefError(`Unknown reference ${shown}: call read_page again (the reference may be too old, or was never given on this page).`);
  }
  return element;
}

/** `e12` for an element (registering it). */
export function shortRef(refs: ElementRefs, element: Element): string {
  return `e${refs.refOf(element).split('.').pop()}`;
}
