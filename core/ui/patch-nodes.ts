/**
 * Makes the child nodes of `parent` from index `from` on equal to `nodes` (a parsed fragment's
 * children, which are moved in where needed), changing only what differs: a node of the same type
 * and tag is kept and brought up to its counterpart (attributes, text, children in turn); any other
 * is replaced. A streamed answer's open end grows by a few words a frame, so the browser then
 * styles, lays out and paints the changed text rather than a whole new table or list.
 *
 * For inert markup only (sanitized Markdown): a kept element keeps its state (scroll position,
 * selection inside it), and nothing else about it is compared.
 */
export function patchNodes(parent: Node, from: number, nodes: ArrayLike<Node>): void {
  const wanted = Array.from(nodes);
  for (let i = 0; i < wanted.length; i++) {
    const next = wanted[i]!;
    const current = parent.childNodes[from + i];
    if (!current) parent.appendChild(next);
    else if (current.nodeType !== next.nodeType || current.nodeName !== next.nodeName) parent.replaceChild(next, current);
    else patchNode(current, next);
  }
  while (parent.childNodes.length > from + wanted.length) parent.lastChild!.remove();
}

function patchNode(current: Node, next: Node): void {
  if (current.nodeType !== Node.ELEMENT_NODE) {
    // Text (and comments): the data only.
    if (current.nodeValue !== next.nodeValue) current.nodeValue = next.nodeValue;
    return;
  }
  const el = current as Element;
  const want = next as Element;
  // Most of Markdown's elements (p, li, td, strong…) have none: skip the lists then.
  if (el.hasAttributes() || want.hasAttributes()) syncAttributes(el, want);
  patchNodes(el, 0, next.childNodes);
}

function syncAttributes(el: Element, want: Element): void {
  for (const name of el.getAttributeNames()) if (!want.hasAttribute(name)) el.removeAttribute(name);
  for (const name of want.getAttributeNames()) {
    const value = want.getAttribute(name)!;
    if (el.getAttribute(name) !== value) el.setAttribute(name, value);
  }
}
