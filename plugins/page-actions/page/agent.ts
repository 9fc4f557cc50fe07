import { elementRefsFor, type ElementRefs } from '@/core/page/element-refs';
import { TRUSTED_OPS, type ActionReply, type DescribeAs, type ElementFacts, type OutlineReply, type PageReply, type PageRequest, type RectReply } from '../protocol';
import { ENGLISH_LABELS, click, fieldFor, fill, hover, press, scroll, selectOption, type ActContext, type ActionWord } from './act';
import { ActionError, frameElementOf, scrollIntoViewIfNeeded, topViewportPoint } from './actionable';
import { setBar } from './bar';
import { quoteName, watchChanges } from './changes';
import { deepActiveElement, isContentEditable, isTextControl } from './input';
import { buildOutline, roleAndName } from './outline';
import { resolveRef, shortRef } from './refs';
import { atPoint, describeAt, drag, type PointMemory } from './pointer';
import { waitFor } from './wait';
import { dialogWatch } from './dialogs';
import { copySelection, pasteText, selectText, uploadFile } from './forms';
import type { TrustedSender } from './trusted';

/**
 * The page agent: installed once per document in the tab's isolated world
 * (`entrypoints/page-actions-agent.ts`), it answers the background's `PageRequest`s: the outline
 * (`outline.ts`), the actions (`act.ts`), the bar (`bar.ts`). Nothing of it is reachable from
 * the page's own scripts.
 */
export interface PageEnv {
  /** Tells the background a bar button was pressed (a trusted click). */
  barButton(button: 'stop' | 'take-over' | 'resume'): void;
  /** A word of the plugin's locale (`pageActions.bar.*`), in the browser's language. */
  words(key: string): string;
  /** Delivers trusted input through the background (`trusted.ts`); absent where there is none (tests, Firefox). */
  trustedInput?: TrustedSender;
}

export interface PageAgent {
  handle(request: PageRequest): Promise<PageReply>;
}

/** The longest wait the page side accepts (the tool's schema allows 60 s). */
const MAX_WAIT_MS = 60_000;

/**
 * Builds the agent for the window it runs in. `win` is for tests (jsdom); the entrypoint passes
 * nothing. `handle` never throws: failures come back as `{ ok: false, error }` worded for the
 * model, with `stale: true` when the model should call read_page again.
 */
export function installPageAgent(env: PageEnv, win: Window & typeof globalThis = window): PageAgent {
  const pointer = { last: null as Element | null };
  /** What `describeAt` named at each point of the screenshot (`page/pointer.ts`). */
  const points: PointMemory = { described: new Map() };
  let refs: ElementRefs = elementRefsFor(win);
  const dialogs = dialogWatch(win);

  /** The registry of the window's current document (a new one after document.open or a new load). */
  const currentRefs = () => (refs = elementRefsFor(win));

  function label(element: Element): { role: string; name: string } {
    try {
      const { role, name } = roleAndName(element);
      return { role: role && !/^(generic|none|presentation)$/.test(role) ? role : element.localName, name };
    } catch {
      return { role: element.localName, name: '' };
    }
  }

  function name(element: Element): string {
    const { role, name: text } = label(element);
    return text ? `${role} ${quoteName(text)}` : role;
  }

  function describe(element: Element): string {
    let ref = '';
    try {
      ref = ` (${shortRef(refs, element)})`;
    } catch {
      // An element the registry cannot name: the role and name still say which one.
    }
    return `${name(element)}${ref}`;
  }

  /** `pageActions.bar.action.*` of the plugin's locale, English where the locale has no such word. */
  function actionLabel(action: ActionWord): string {
    const key = `pageActions.bar.action.${action}`;
    let word = '';
    try {
      word = env.words(key);
    } catch {
      word = '';
    }
    return word && word !== key && word !== key.replace(/\./g, '_') ? word : ENGLISH_LABELS[action];
  }

  /** The actions' context; `trusted`: the background asked for trusted input on this action (`request.trusted`). */
  function contextFor(trusted: TrustedSender | undefined): ActContext {
    return { doc: win.document, describe, name, pointer, label: actionLabel, ...(trusted ? { trusted } : {}) };
  }

  function resolve(ref: string, token: string | undefined): Element {
    return resolveRef(refs, ref, token);
  }

  function page(): { url: string; title: string } {
    return { url: String(win.location.href), title: String(win.document.title ?? '') };
  }

  /** Runs one action with the change watch around it. */
  async function act(element: Element | null, run: () => string | Promise<string>): Promise<ActionReply> {
    // Dialogs the page raises meanwhile are answered at once and reported (`dialogs.ts`).
    const { value, dialogs: seen, more } = await dialogs.during(() => actWatched(element, run));
    return { ...value, ...(seen.length ? { dialogs: seen } : {}), ...(more ? { moreDialogs: more } : {}) };
  }

  async function actWatched(element: Element | null, run: () => string | Promise<string>): Promise<ActionReply> {
    const watch = watchChanges(win.document, refs, element);
    // The document starts to unload (a link, a form post, a script's location change): the
    // background then waits for the new page instead of guessing after every action.
    let leaving = false;
    const onLeave = () => void (leaving = true);
    win.addEventListener('beforeunload', onLeave, true);
    win.addEventListener('pagehide', onLeave, true);
    try {
      let note: string;
      try {
        note = await run();
      } catch (error) {
        watch.cancel();
        throw error;
      }
      const changed = await watch.finish();
      return { changed, ...page(), note, ...(leaving ? { navigating: true } : {}) };
    } finally {
      win.removeEventListener('beforeunload', onLeave, true);
      win.removeEventListener('pagehide', onLeave, true);
    }
  }

  async function dispatch(request: PageRequest): Promise<Record<string, unknown>> {
    const trusted = request.trusted === true && TRUSTED_OPS.has(request.op) ? env.trustedInput : undefined;
    const context = () => contextFor(trusted);
    switch (request.op) {
      case 'outline': {
        let root: Element | undefined;
        if (request.ref) root = resolve(request.ref, request.token);
        else if (request.selector) root = bySelector(win.document, request.selector);
        const outline = buildOutline(win.document, refs, { roots: root ? [root] : undefined, maxLength: request.maxLength, find: typeof request.find === 'string' ? request.find : undefined });
        return { text: outline.text, nodes: outline.nodes, truncated: outline.truncated, ...page() } satisfies OutlineReply;
      }
      case 'bar':
        setBar(request.state, env, request.reason);
        return {};
      case 'describe': {
        // Without a reference: the focused element, where a key press goes.
        if (request.ref === undefined) return { ...facts(deepActiveElement(win.document) ?? win.document.body ?? win.document.documentElement, request.as), focused: true };
        return facts(resolve(request.ref, request.token), request.as) as unknown as Record<string, unknown>;
      }
      case 'rect':
        return rectOf(resolve(request.ref, request.token)) as unknown as Record<string, unknown>;
      case 'click': {
        const element = resolve(request.ref, request.token);
        return { ...(await act(element, () => click(context(), element, request))) };
      }
      case 'fill': {
        const element = resolve(request.ref, request.token);
        if (typeof request.text !== 'string') throw new ActionError('fill needs `text` (a string; "" clears the field).');
        return { ...(await act(element, () => fill(context(), element, request.text, request.submit === true))) };
      }
      case 'select': {
        const element = resolve(request.ref, request.token);
        return { ...(await act(element, () => selectOption(context(), element, request.value, request.label, request.values))) };
      }
      case 'selectText': {
        const element = resolve(request.ref, request.token);
        return { ...(await act(element, () => selectText(context(), element, request.text, request.start, request.end))) };
      }
      case 'clipboard': {
        if (request.action === 'paste') {
          if (!request.ref || typeof request.text !== 'string') throw new ActionError('A paste needs `ref` (where to paste) and `text`.');
          const element = resolve(request.ref, request.token);
          return { ...(await act(element, () => pasteText(context(), element, request.text!))) };
        }
        if (request.action !== 'copy' && request.action !== 'cut') throw new ActionError('clipboard `action` is copy, cut or paste.');
        const element = request.ref ? resolve(request.ref, request.token) : null;
        let clip = '';
        const reply = await act(element, () => {
          const done = copySelection(context(), request.action === 'cut', element ?? undefined);
          clip = done.clipboard;
          return done.note;
        });
        return { ...reply, clipboard: clip };
      }
      case 'upload': {
        const element = resolve(request.ref, request.token);
        const file = request.file;
        if (!file || typeof file.name !== 'string' || typeof file.base64 !== 'string') throw new ActionError('upload needs a file.');
        return { ...(await act(element, () => uploadFile(context(), element, file))) };
      }
      case 'dialog': {
        if (typeof request.accept !== 'boolean') throw new ActionError('dialog needs `accept` (true for OK, false for Cancel).');
        dialogs.arm({ accept: request.accept, ...(typeof request.text === 'string' ? { text: request.text } : {}) });
        return { changed: '', ...page(), note: '' };
      }
      case 'press': {
        const element = request.ref ? resolve(request.ref, request.token) : undefined;
        if (typeof request.key !== 'string' || !request.key) throw new ActionError('press_key needs `key` ("Enter", "Control+a").');
        return { ...(await act(element ?? win.document.activeElement, () => press(context(), request.key, element))) };
      }
      case 'hover': {
        const element = resolve(request.ref, request.token);
        return { ...(await act(element, () => hover(context(), element))) };
      }
      case 'scroll': {
        const element = request.ref ? resolve(request.ref, request.token) : undefined;
        return { ...(await act(element ?? null, () => scroll(context(), element, request.direction, request.amount ?? 1))) };
      }
      case 'drag': {
        const element = resolve(request.ref, request.token);
        const to = request.toRef ? resolve(request.toRef, request.token) : undefined;
        return { ...(await act(element, () => drag(context(), element, { to, dx: request.dx, dy: request.dy }))) };
      }
      case 'describeAt': {
        const element = describeAt(win, points, request.x, request.y, request.shot, name);
        return facts(element, 'click') as unknown as Record<string, unknown>;
      }
      case 'clickAt':
        return { ...(await act(null, () => atPoint(context(), win, points, request.x, request.y, request.shot, { button: request.button, double: request.double }))) };
      case 'hoverAt':
        return { ...(await act(null, () => atPoint(context(), win, points, request.x, request.y, request.shot, { hover: true }))) };
      case 'wait': {
        const element = request.ref ? resolve(request.ref, request.token) : undefined;
        if (request.text === undefined && request.textGone === undefined && !element) {
          throw new ActionError('wait_for needs `text`, `text_gone` or `ref` (navigation is waited for by the tool itself).');
        }
        const timeoutMs = Math.min(Math.max(Number(request.timeoutMs) || 10_000, 0), MAX_WAIT_MS);
        const goal = { text: request.text, textGone: request.textGone, element, elementName: element ? describe(element) : undefined, timeoutMs };
        return { ...(await act(element ?? null, () => waitFor(win.document, goal))) };
      }
      default:
        throw new ActionError(`Unknown page request "${String((request as { op?: unknown }).op).slice(0, 40)}".`);
    }
  }

  /**
   * The facts of the element an action on `element` really reaches (`receiverOf`), with where it
   * may send what the page holds: a link it follows, a form it submits.
   */
  function facts(element: Element, as: DescribeAs = 'other'): ElementFacts {
    const receiver = receiverOf(element, as);
    const { role, name: text } = label(receiver);
    const out: ElementFacts = { role, name: text, tag: receiver.localName };
    if (receiver.localName === 'input') out.type = ((receiver as HTMLInputElement).type || 'text').toLowerCase();
    if (isTextControl(receiver) || receiver.localName === 'select' || isContentEditable(receiver)) out.editable = true;
    if (submitsPost(receiver)) out.submitsPost = true;
    if (as === 'click' || as === 'press') {
      const link = linkOf(element);
      if (link) out.link = link;
    }
    if (as === 'click' || as === 'press' || as === 'fill') {
      const form = formDestination(receiver, as !== 'click');
      if (form) out.form = form;
    }
    return out;
  }

  return {
    async handle(request: PageRequest): Promise<PageReply> {
      try {
        if (!request || typeof request !== 'object') throw new ActionError('Bad page request.');
        currentRefs();
        const fields = await dispatch(request);
        return { ok: true, token: refs.token, ...fields } as PageReply;
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        const stale = isStale(error, message, request, refs);
        return stale ? { ok: false, error: message, stale: true } : { ok: false, error: message };
      }
    },
  };
}

function isStale(error: unknown, message: string, request: PageRequest, refs: ElementRefs): boolean {
  if ((error as { stale?: unknown })?.stale === true) return true;
  const usedRef = typeof (request as { ref?: unknown })?.ref === 'string';
  if (usedRef && request.token && request.token !== refs.token) return true;
  return usedRef && /\bstale\b|another page|earlier load/i.test(message);
}

function bySelector(doc: Document, selector: string): Element {
  let found: Element | null;
  try {
    found = doc.querySelector(selector);
  } catch {
    throw new ActionError(`"${selector.slice(0, 200)}" is not a valid CSS selector.`);
  }
  if (!found) throw new ActionError(`No element of the page matches the CSS selector "${selector.slice(0, 200)}". Call read_page without it to see the page.`);
  return found;
}

/**
 * The element an action on `element` really reaches: a fill types into a label's control or the
 * one field inside a wrapper (`fieldFor`, as `fill` does); a choice goes to a label's control; a
 * click and a key press reach the element itself.
 */
export function receiverOf(element: Element, as: DescribeAs): Element {
  if (as === 'fill') return fieldFor(element);
  if (as === 'select' && element.localName === 'label' && (element as HTMLLabelElement).control) return (element as HTMLLabelElement).control!;
  return element;
}

/** The resolved address of the link `element` is or sits in (`a[href]`, `area[href]`), if any. */
export function linkOf(element: Element): string | undefined {
  const link = element.closest?.('a[href], area[href]') as HTMLAnchorElement | HTMLAreaElement | null;
  const href = link?.href;
  return typeof href === 'string' && href ? href : undefined;
}

/** Whether `element` submits its form when activated (a submit button or image input). */
function isSubmitter(element: Element): boolean {
  if (element.localName === 'button') return ((element.getAttribute('type') ?? 'submit').toLowerCase() || 'submit') === 'submit';
  return element.localName === 'input' && /^(submit|image)$/i.test((element as HTMLInputElement).type);
}

/**
 * Where the form `element` submits sends its fields (resolved): for a submitter, its `formaction`
 * or the form's `action`; for a field (`fields`: Enter in it submits the form), the form's. None
 * for a `dialog` form, which sends nothing.
 */
export function formDestination(element: Element, fields: boolean): string | undefined {
  const form = (element as HTMLButtonElement).form as HTMLFormElement | null | undefined;
  if (!form) return undefined;
  const submitter = isSubmitter(element);
  if (!submitter && !(fields && /^(input|textarea|select)$/.test(element.localName))) return undefined;
  const method = (submitter && element.hasAttribute('formmethod') ? element.getAttribute('formmethod') : form.getAttribute('method')) ?? '';
  if (method.trim().toLowerCase() === 'dialog') return undefined;
  // From the attributes, resolved as the browser does (`form.action` can be shadowed by a field named "action").
  const action = (submitter && element.hasAttribute('formaction') ? element.getAttribute('formaction') : form.getAttribute('action'))?.trim() ?? '';
  try {
    return new URL(action, element.ownerDocument.baseURI).href;
  } catch {
    return undefined;
  }
}

/**
 * True when activating `element` posts a form: a submit button of a POST form (its own
 * `formmethod` first), or a field of a POST form (Enter in it submits through the form's default
 * button).
 */
export function submitsPost(element: Element): boolean {
  const control = element as HTMLButtonElement;
  const form = control.form as HTMLFormElement | null | undefined;
  if (!form) return false;
  const isPost = (method: string | null | undefined) => (method ?? '').toLowerCase() === 'post';
  const submitter = (element.localName === 'button' && ((element.getAttribute('type') ?? 'submit').toLowerCase() || 'submit') === 'submit') || (element.localName === 'input' && /^(submit|image)$/i.test((element as HTMLInputElement).type));
  if (submitter) return element.hasAttribute('formmethod') ? isPost(element.getAttribute('formmethod')) : isPost(form.getAttribute('method'));
  if (element.localName === 'input' || element.localName === 'textarea' || element.localName === 'select') {
    const defaultButton = [...form.elements].find((other) => (other.localName === 'button' && ((other.getAttribute('type') ?? 'submit').toLowerCase() || 'submit') === 'submit') || (other.localName === 'input' && /^(submit|image)$/i.test((other as HTMLInputElement).type)));
    if (defaultButton?.hasAttribute('formmethod')) return isPost(defaultButton.getAttribute('formmethod'));
    return element.localName !== 'textarea' && element.localName !== 'select' && isPost(form.getAttribute('method'));
  }
  return false;
}

/** Where `element` is in the top viewport (CSS px), after scrolling it into view; frames' offsets added. */
export function rectOf(element: Element): RectReply {
  scrollIntoViewIfNeeded(element);
  const rect = element.getBoundingClientRect();
  const { x, y } = topViewportPoint(element.ownerDocument, { x: rect.left, y: rect.top });
  const top = topWindow(element.ownerDocument.defaultView);
  return { x, y, width: rect.width, height: rect.height, devicePixelRatio: top?.devicePixelRatio || 1 };
}

function topWindow(view: Window | null): Window | null {
  let current = view;
  for (let i = 0; current && i < 16; i++) {
    const frame = frameElementOf(current.document);
    if (!frame) return current;
    current = frame.ownerDocument.defaultView;
  }
  return current;
}
