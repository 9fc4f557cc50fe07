/**
 * Walking what a person sees of the DOM: an element's open shadow root instead of its light
 * children, a slot's assigned nodes (or its fallback content), and nothing else. Cursors instead of
 * child arrays, so a node with 100,000 children costs nothing until it is visited, and walks are
 * loops, never recursion (a 10,000-level page cannot overflow the stack).
 */

/** The children of one node, one at a time. */
export interface Cursor {
  next: Node | null;
  list: readonly Node[] | null;
  index: number;
}

/** The rendered children of `node`: its open shadow root's, a slot's assigned nodes, else its own. */
export function childCursor(node: Node): Cursor {
  if (node.nodeType === 1) {
    const element = node as Element;
    const shadow = element.shadowRoot;
    if (shadow) return { next: shadow.firstChild, list: null, index: 0 };
    if (element.localName === 'slot' && typeof (element as HTMLSlotElement).assignedNodes === 'function') {
      const assigned = (element as HTMLSlotElement).assignedNodes();
      if (assigned.length) return { next: null, list: assigned, index: 0 };
    }
  }
  return { next: node.firstChild, list: null, index: 0 };
}

/** The next child, or null at the end. */
export function step(cursor: Cursor): Node | null {
  if (cursor.list) return cursor.index < cursor.list.length ? cursor.list[cursor.index++]! : null;
  const node = cursor.next;
  if (node) cursor.next = node.nextSibling;
  return node;
}
