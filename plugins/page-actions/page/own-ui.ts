/**
 * What the extension itself shows in a page (the acting bar, highlights): the outline skips it and
 * the covered-element check looks through it. Only this isolated world can mark an element.
 */
const ours = new WeakSet<Node>();

export function markOwnUi(node: Node): void {
  ours.add(node);
}

/** True for the extension's own host elements (and nothing a page made). */
export function isOwnUi(node: Node | null | undefined): boolean {
  return Boolean(node && ours.has(node));
}
