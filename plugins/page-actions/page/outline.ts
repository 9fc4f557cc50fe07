import type { ElementRefs } from '@/core/page/element-refs';

/** Options of one outline. */
export interface OutlineOptions {
  /** Outline only these subtrees (in document order; the whole document without them). */
  roots?: Element[];
  /** Cut after this many characters, with a note on how to ask for more. */
  maxLength?: number;
}

export interface Outline {
  text: string;
  nodes: number;
  truncated: boolean;
}

/** The accessibility outline (the `outline` work; placeholder in the skeleton). */
export function buildOutline(_doc: Document, _refs: ElementRefs, _options: OutlineOptions = {}): Outline {
  throw new Error('not built yet');
}

/** An element's role and accessible name, as the outline prints them (placeholder in the skeleton). */
export function roleAndName(_element: Element): { role: string; name: string } {
  throw new Error('not built yet');
}
