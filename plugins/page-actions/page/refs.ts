import type { ElementRefs } from '@/core/page/element-refs';

/**
 * The element a reference names: `e12` (as the outline prints it) or `@<token>.12`. `expectedToken`
 * is the document token the background last saw in this tab: when the page has another one now,
 * the reference is stale. Throws an Error worded for the model (placeholder in the skeleton).
 */
export function resolveRef(_refs: ElementRefs, _ref: string, _expectedToken?: string): Element {
  throw new Error('not built yet');
}

/** `e12` for an element (registering it). */
export function shortRef(refs: ElementRefs, element: Element): string {
  return `e${refs.refOf(element).split('.').pop()}`;
}
