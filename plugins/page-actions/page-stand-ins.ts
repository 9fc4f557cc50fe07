import { elementRefsFor } from '@/core/page/element-refs';
import type { PageReply, PageRequest } from './protocol';

// Stand-ins for the page agent's unit tests of the actions (act.test.ts, pointer.test.ts): a layout
// for jsdom (`installLayoutStandIn`, boxes from `data-rect`), an event recorder, a plain
// outline, a reference resolver and the agent's calls (`agentCalls`), so those tests pin the actions alone (the real outline and
// resolver have their own tests). Used from `vi.mock` factories:
//   vi.mock('./page/outline', async () => (await import('./page-stand-ins')).outlineStandIn());

/** `page/outline`'s `buildOutline` and `roleAndName`, from tag names and a few attributes. */
export function outlineStandIn() {
  const ROLES: Record<string, string> = { button: 'button', a: 'link', select: 'combobox', textarea: 'textbox', li: 'listitem', dialog: 'dialog', h1: 'heading', ul: 'list' };
  const roleAndName = (element: Element) => {
    const input = element as HTMLInputElement;
    let role = element.getAttribute('role') ?? ROLES[element.localName] ?? 'generic';
    if (element.localName === 'input') role = input.type === 'checkbox' ? 'checkbox' : input.type === 'radio' ? 'radio' : 'textbox';
    const label = input.labels?.[0]?.textContent ?? '';
    const name = (element.getAttribute('aria-label') ?? (label || element.getAttribute('placeholder')) ?? element.textContent ?? '').replace(/\s+/g, ' ').trim();
    return { role, name: role === 'textbox' && !element.getAttribute('aria-label') && !label && !element.getAttribute('placeholder') ? '' : name };
  };
  const buildOutline = (doc: Document, refs: { refOf(e: Element): string }, options: { roots?: Element[] } = {}) => {
    const lines: string[] = [];
    for (const root of options.roots ?? [doc.body]) {
      for (const element of [root, ...root.querySelectorAll('*')]) {
        if (element.closest('[hidden]')) continue;
        const { role, name } = roleAndName(element);
        if (role === 'generic') continue;
        const input = element as HTMLInputElement;
        const state = input.type === 'checkbox' && input.checked ? ' [checked]' : '';
        const value = role === 'textbox' && input.value ? `: ${input.value}` : '';
        lines.push(`- ${role}${name ? ` "${name}"` : ''}${state} [ref=e${refs.refOf(element).split('.').pop()}]${value}`);
      }
    }
    return { text: lines.join('\n'), nodes: lines.length, truncated: false };
  };
  return { buildOutline, roleAndName };
}

/** `page/refs` with a resolver that takes `e12` for the registry's `@<token>.12` and refuses another token as stale. */
export function refsStandIn<T extends object>(actual: T) {
  return {
    ...actual,
    resolveRef(refs: { token: string; resolve(text: string): Element }, ref: string, expected?: string) {
      if (expected && expected !== refs.token) throw Object.assign(new Error(`The reference ${ref} is from before the page changed: call read_page again.`), { stale: true });
      const full = /^e\d+$/.test(ref) ? `@${refs.token}.${ref.slice(1)}` : ref;
      return refs.resolve(full);
    },
  };
}

// jsdom lays nothing out: every element gets a box from `data-rect` ("x,y,w,h"; 10,10,100,20 by
// default), and none when it or an ancestor is hidden or display: none.
function shown(element: Element): boolean {
  for (let node: Element | null = element; node; node = node.parentElement ?? ((node.getRootNode() as ShadowRoot).host ?? null)) {
    if (node.hasAttribute('hidden') || getComputedStyle(node).display === 'none') return false;
  }
  return true;
}
function box(element: Element) {
  const [x = 0, y = 0, w = 0, h = 0] = shown(element) ? (element.getAttribute('data-rect') ?? '10,10,100,20').split(',').map(Number) : [];
  return { x, y, left: x, top: y, width: w, height: h, right: x + w, bottom: y + h, toJSON() {} } as DOMRect;
}
export function installLayoutStandIn(): void {
  Element.prototype.getBoundingClientRect = function (this: Element) {
    return box(this);
  };
  Element.prototype.getClientRects = function (this: Element) {
    return (shown(this) ? [box(this)] : []) as unknown as DOMRectList;
  };
}

export const EVENTS = ['pointerover', 'pointerenter', 'mouseover', 'mouseenter', 'pointermove', 'mousemove', 'pointerdown', 'mousedown', 'focus', 'pointerup', 'mouseup', 'click', 'dblclick', 'contextmenu', 'auxclick', 'keydown', 'keypress', 'keyup', 'beforeinput', 'input', 'change', 'submit', 'blur'];
export function record(element: Element, log: string[] = [], types = EVENTS): string[] {
  for (const type of types) element.addEventListener(type, (event) => log.push(event.type), true);
  return log;
}

/** A page agent's calls as the background makes them: `ref(element)` as the outline prints it, `call(request)` with the document's token. */
export function agentCalls(agent: () => { handle(request: PageRequest): Promise<PageReply> }) {
  const refs = () => elementRefsFor(window);
  return {
    refs,
    ref: (element: Element) => `e${refs().refOf(element).split('.').pop()}`,
    call: (request: PageRequest) => agent().handle({ token: refs().token, ...request } as PageRequest) as Promise<PageReply & Record<string, any>>,
  };
}
