import { browser } from 'wxt/browser';
import { said, type Said } from '@/core/i18n/catalog';
import type { CallWords, ToolAnnotations } from '@/core/registry/types';
import { canonicalKey, keyEffect } from './key-spec';
import type { DescribeAs, ElementFacts } from './protocol';
import type { PageActionsService } from './service';
import { isSensitiveName } from './sensitive';
import { lastShot } from './shots';
import { workspaceFileSize } from './workspace-file';

/**
 * The approval card's words for each action ("Click 'Place order' on shop.example", "Type 'buy
 * milk' into 'What needs to be done?'") and whether the call is sensitive (asked every time,
 * never remembered: `core/approvals/policy.ts`). The gate calls a tool's `describe` annotation
 * with the tab it resolved; for an element, the words ask the page agent what it is (`describe`,
 * no side effect). Names from the page go in as parameters (cut here, shown as text by the card);
 * a password is never shown, only dots.
 *
 * Sensitive: typing into a password field (or a field named like one, or a card number); a click,
 * or Enter in a field, on an element whose name suggests paying, deleting or sending (`sensitive.ts`),
 * or that submits a form that posts (`submitsPost`); Enter or Space with no element named (it goes
 * to whatever has the focus, which cannot be checked).
 */

/** How much of a name or a typed text goes into the words (the card cuts again at 80). */
const NAME_CHARS = 80;
const TEXT_CHARS = 60;
/** What a password looks like on the card: always the same dots, so not even its length shows. */
const PASSWORD_DOTS = '••••••••';

/** What `describeAction` needs besides the call: the page agent, and the tab's host for "on shop.example". */
export interface WordsEnv {
  service: Pick<PageActionsService, 'callPage'>;
  /** The tab's host ("shop.example"), or undefined when it cannot be told. */
  host(tabId: number): Promise<string | undefined>;
  /** The tab's address (where an uploaded file goes), if it can be told. */
  url?(tabId: number): Promise<string | undefined>;
  /** The size in bytes of a workspace file (`upload_file`'s card), if it is there. */
  fileSize?(path: string): Promise<number | undefined>;
}

/** Actions with words; the read-only tools (read_page, wait_for, screenshot) have no card. */
const ACTIONS = ['click', 'fill', 'select_option', 'press_key', 'hover', 'scroll', 'navigate', 'drag', 'click_at', 'hover_at', 'select_text', 'clipboard', 'upload_file', 'dialog'] as const;
type Action = (typeof ACTIONS)[number];

/**
 * The `describe` annotation for the tool named `tool` (undefined for tools without a card):
 * `annotations: { …, describe: cardWords('click') }`.
 */
export function cardWords(tool: string): ToolAnnotations['describe'] {
  if (!(ACTIONS as readonly string[]).includes(tool)) return undefined;
  return (input, context) => describeAction(tool as Action, input ?? {}, context.tabId, { service: context.service as PageActionsService, host: tabHost, url: tabAddress, fileSize: workspaceFileSize });
}

/**
 * The words of one call of `tool` in tab `tabId`, judged on the element that really receives it
 * (a label's field, the one field in a wrapper, the focused element for a key), with what it
 * carries where (`CallWords.carries`: typed or chosen text to the page's site, a link's or a
 * form's destination) and the fields the card shows as dots. Throws when the page cannot be asked
 * (the gate then keeps its generic words).
 */
export async function describeAction(tool: Action, input: Record<string, unknown>, tabId: number | undefined, env: WordsEnv): Promise<CallWords | undefined> {
  const ref = typeof input.ref === 'string' ? input.ref : undefined;
  const site = async (): Promise<string | Said> => (tabId === undefined ? undefined : await env.host(tabId).catch(() => undefined)) || said('pageActions.card.thisPage');
  const facts = async (as: DescribeAs): Promise<ElementFacts | undefined> => (ref === undefined ? undefined : await elementFacts(env, tabId, ref, as));
  switch (tool) {
    case 'click': {
      const el = await facts('click');
      const name = nameOf(el, ref);
      const keys = Array.isArray(input.modifiers) && input.modifiers.length ? input.modifiers.join('+') : '';
      const key = keys
        ? 'pageActions.card.clickWith'
        : input.double === true
          ? 'pageActions.card.doubleClick'
          : input.button === 'right'
            ? 'pageActions.card.rightClick'
            : input.button === 'middle'
              ? 'pageActions.card.middleClick'
              : 'pageActions.card.click';
      const to = el?.link ?? el?.form;
      return { words: said(key, { name, site: await site(), ...(keys ? { keys } : {}) }), ...sensitive(el !== undefined && actsSensitively(el)), ...carries(undefined, to ? [to] : []) };
    }
    case 'fill': {
      const el = await facts('fill');
      const name = nameOf(el, ref);
      const text = typeof input.text === 'string' ? input.text : '';
      const secret = el !== undefined && isSecretField(el);
      const submit = input.submit === true;
      const to = submit && el?.form ? [el.form] : [];
      if (!text && !submit) return { words: said('pageActions.card.clear', { name, site: await site() }), ...sensitive(false) };
      const shown = secret ? PASSWORD_DOTS : cut(text, TEXT_CHARS);
      return {
        words: said(submit ? 'pageActions.card.fillSubmit' : 'pageActions.card.fill', { text: shown, name, site: await site() }),
        ...sensitive(secret || (submit && el !== undefined && actsSensitively(el))),
        ...carries(text, to),
        ...(secret ? { hidden: ['text'] } : {}),
      };
    }
    case 'select_option': {
      const el = await facts('select');
      const several = Array.isArray(input.values) ? input.values.filter((v): v is string => typeof v === 'string') : undefined;
      const option = several ? several.join(', ') : typeof input.label === 'string' ? input.label : typeof input.value === 'string' ? input.value : '';
      return { words: said('pageActions.card.select', { option: cut(option, NAME_CHARS), name: nameOf(el, ref), site: await site() }), ...sensitive(false), ...carries(option, []) };
    }
    case 'press_key': {
      // `prepare` made the key canonical: every name of Enter is "Enter" here and in the page.
      const raw = typeof input.key === 'string' ? input.key.slice(0, 60) : '';
      let effect: ReturnType<typeof keyEffect>;
      try {
        effect = keyEffect(raw);
      } catch {
        // A key that names nothing fails in the page the same way: nothing is pressed.
        effect = { presses: false, enter: false };
      }
      let key: string;
      try {
        key = canonicalKey(raw);
      } catch {
        key = cut(raw, 60);
      }
      // Where the key goes: the element named, else the focused one (`body`: nothing has the focus).
      const el = ref === undefined ? await elementFacts(env, tabId, undefined, 'press') : await facts('press');
      const nothingFocused = ref === undefined && (el === undefined || el.tag === 'body' || el.tag === 'html');
      const to = effect.presses ? [el?.link, el?.form].filter((address): address is string => typeof address === 'string') : [];
      // Enter or Space where nothing is focused reaches the page's own key handlers: what they do cannot be checked.
      const isSensitive = effect.presses && (nothingFocused || (el !== undefined && actsSensitively(el)));
      const words = nothingFocused ? said('pageActions.card.press', { key, site: await site() }) : said('pageActions.card.pressIn', { key, name: nameOf(el, ref), site: await site() });
      return { words, ...sensitive(isSensitive), ...carries(effect.typed, to) };
    }
    case 'hover': {
      const el = await facts('other');
      return { words: said('pageActions.card.hover', { name: nameOf(el, ref), site: await site() }), ...sensitive(false) };
    }
    case 'scroll': {
      const direction = typeof input.direction === 'string' && ['up', 'down', 'left', 'right'].includes(input.direction) ? said(`pageActions.card.direction.${input.direction as 'up'}`) : undefined;
      if (ref === undefined) return { words: said('pageActions.card.scroll', { direction: direction ?? said('pageActions.card.direction.down'), site: await site() }), ...sensitive(false) };
      const name = nameOf(await facts('other'), ref);
      return { words: direction ? said('pageActions.card.scrollIn', { direction, name, site: await site() }) : said('pageActions.card.scrollTo', { name, site: await site() }), ...sensitive(false) };
    }
    case 'drag': {
      const el = await facts('other');
      const toRef = typeof input.to_ref === 'string' ? input.to_ref : undefined;
      const to = toRef === undefined ? undefined : await elementFacts(env, tabId, toRef, 'other');
      // Dropping onto "Trash" or dragging "Delete account" somewhere: asked every time, as a click on it would be.
      const isSensitive = (el !== undefined && actsSensitively(el)) || (to !== undefined && actsSensitively(to));
      if (toRef !== undefined) return { words: said('pageActions.card.drag', { name: nameOf(el, ref), to: nameOf(to, toRef), site: await site() }), ...sensitive(isSensitive) };
      const dx = String(Math.round(Number(input.dx) || 0));
      const dy = String(Math.round(Number(input.dy) || 0));
      return { words: said('pageActions.card.dragBy', { name: nameOf(el, ref), dx, dy, site: await site() }), ...sensitive(isSensitive) };
    }
    case 'click_at':
    case 'hover_at': {
      // What is at the point now, as the page agent sees it (and remembers: the click refuses if it changes).
      const x = Number(input.x);
      const y = Number(input.y);
      const shot = lastShot(tabId);
      let el: ElementFacts | undefined;
      if (tabId !== undefined && Number.isFinite(x) && Number.isFinite(y)) {
        const reply = await env.service.callPage<ElementFacts>(tabId, { op: 'describeAt', x, y, ...(shot ? { shot } : {}) });
        el = reply.ok ? checkedFacts(reply) : undefined;
      }
      const what = el ? pointName(el) : said('pageActions.card.nothingThere');
      const at = { x: String(Math.round(x)), y: String(Math.round(y)), what, site: await site() };
      if (tool === 'hover_at') return { words: said('pageActions.card.hoverAt', at), ...sensitive(false) };
      const key = input.double === true ? 'pageActions.card.doubleClickAt' : input.button === 'right' ? 'pageActions.card.rightClickAt' : input.button === 'middle' ? 'pageActions.card.middleClickAt' : 'pageActions.card.clickAt';
      const to = el?.link ?? el?.form;
      // Nothing known at the point (no screenshot, a frame from elsewhere): asked every time.
      return { words: said(key, at), ...sensitive(el === undefined || actsSensitively(el)), ...carries(undefined, to ? [to] : []) };
    }
    case 'select_text': {
      const name = nameOf(await facts('other'), ref);
      if (typeof input.text === 'string') return { words: said('pageActions.card.selectText', { text: cut(input.text, TEXT_CHARS), name, site: await site() }), ...sensitive(false) };
      const start = typeof input.start === 'number' ? input.start : 0;
      const end = typeof input.end === 'number' ? input.end : start;
      return { words: said('pageActions.card.selectRange', { start, end, name, site: await site() }), ...sensitive(false) };
    }
    case 'clipboard': {
      if (input.action !== 'paste') return { words: said(input.action === 'cut' ? 'pageActions.card.cut' : 'pageActions.card.copy', { site: await site() }), ...sensitive(false) };
      // A paste is typing: the text goes to the page's site, a secret field's text is dots.
      const el = await facts('fill');
      const text = typeof input.text === 'string' ? input.text : '';
      const secret = el !== undefined && isSecretField(el);
      return {
        words: said('pageActions.card.paste', { text: secret ? PASSWORD_DOTS : cut(text, TEXT_CHARS), name: nameOf(el, ref), site: await site() }),
        ...sensitive(secret),
        ...carries(text, []),
        ...(secret ? { hidden: ['text'] } : {}),
      };
    }
    case 'upload_file': {
      // A file leaves for the page's site: always asked, never remembered, outbound to that site
      // whatever the user said (a file is never "the user's own words").
      const el = await facts('other');
      const path = typeof input.path === 'string' ? input.path : '';
      const size = env.fileSize ? await env.fileSize(path).catch(() => undefined) : undefined;
      const address = tabId !== undefined && env.url ? await env.url(tabId).catch(() => undefined) : undefined;
      return {
        words: said('pageActions.card.upload', { file: cut(path, NAME_CHARS), size: size === undefined ? '?' : bytesWord(size), name: nameOf(el, ref), site: await site() }),
        sensitive: true,
        carries: address ? { to: [address] } : { text: `\u0000file ${path}` },
      };
    }
    case 'dialog': {
      const text = typeof input.text === 'string' ? input.text : undefined;
      const site_ = await site();
      if (input.accept === true && text !== undefined) return { words: said('pageActions.card.dialogText', { text: cut(text, TEXT_CHARS), site: site_ }), ...sensitive(false), ...carries(text, []) };
      return { words: said(input.accept === true ? 'pageActions.card.dialogOk' : 'pageActions.card.dialogCancel', { site: site_ }), ...sensitive(false) };
    }
    case 'navigate': {
      if (typeof input.url === 'string') return { words: said('pageActions.card.open', { url: cut(input.url, NAME_CHARS) }), ...sensitive(false) };
      const action = input.action === 'forward' ? 'forward' : input.action === 'reload' ? 'reload' : 'back';
      return { words: said(`pageActions.card.${action}`, { site: await site() }), ...sensitive(false) };
    }
  }
}

/** What a call carries where, for the outbound rule: `text` into the page, `to` the addresses it follows. */
function carries(text: string | undefined, to: string[]): Pick<CallWords, 'carries'> {
  if (text === undefined && !to.length) return {};
  return { carries: { ...(text !== undefined ? { text } : {}), ...(to.length ? { to } : {}) } };
}

/** The facts of the element that receives the action (`as`), from the page agent; without `ref`, of the focused element. Undefined when the page says it has no such element (the action will fail the same way). */
async function elementFacts(env: WordsEnv, tabId: number | undefined, ref: string | undefined, as: DescribeAs): Promise<ElementFacts | undefined> {
  if (tabId === undefined) throw new Error('No tab to ask about the element.');
  const reply = await env.service.callPage<ElementFacts>(tabId, { op: 'describe', ...(ref !== undefined ? { ref } : {}), as });
  if (!reply.ok) return undefined;
  return checkedFacts(reply);
}

/** Page data: only the fields we use, checked. */
function checkedFacts(reply: ElementFacts): ElementFacts {
  return {
    role: typeof reply.role === 'string' ? reply.role.slice(0, 60) : '',
    name: typeof reply.name === 'string' ? reply.name.slice(0, 2000) : '',
    tag: typeof reply.tag === 'string' ? reply.tag.slice(0, 60) : '',
    ...(typeof reply.type === 'string' ? { type: reply.type.slice(0, 60).toLowerCase() } : {}),
    ...(reply.submitsPost === true ? { submitsPost: true } : {}),
    ...(typeof reply.link === 'string' ? { link: reply.link } : {}),
    ...(typeof reply.form === 'string' ? { form: reply.form } : {}),
  };
}

/** What the card calls the element at a point: its role (or tag) and its name ('button “Delete”', 'canvas'). */
function pointName(el: ElementFacts): string {
  const name = cut(el.name, NAME_CHARS);
  const kind = el.role || el.tag;
  return name ? `${kind} “${name}”` : kind;
}

/** What the card calls an element: its accessible name, else its role (or tag) and reference. */
function nameOf(el: ElementFacts | undefined, ref: string | undefined): string {
  const name = el ? cut(el.name, NAME_CHARS) : '';
  if (name) return name;
  return [el?.role || el?.tag, ref].filter(Boolean).join(' ');
}

/** A click (or Enter) on it may pay, delete or send: its name says so, or it submits a form that posts. */
function actsSensitively(el: ElementFacts): boolean {
  return el.submitsPost === true || isSensitiveName(el.name);
}

/** A field whose text must not be shown: a password field, or one named like a password or a card number. */
function isSecretField(el: ElementFacts): boolean {
  return el.type === 'password' || isSensitiveName(el.name, 'secret');
}

function sensitive(yes: boolean): { sensitive?: true } {
  return yes ? { sensitive: true } : {};
}

/** A text on one line, cut at `max` graphemes with an ellipsis. */
export function cut(text: string, max: number): string {
  const flat = text.slice(0, max * 8).replace(/\s+/g, ' ').trim();
  const pieces = [...new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(flat)].map((s) => s.segment);
  return pieces.length > max ? `${pieces.slice(0, max - 1).join('').trimEnd()}…` : flat;
}

/** A size in bytes as the card says it ("12 bytes", "3.4 KB", "2.1 MB"). */
export function bytesWord(size: number): string {
  if (size < 1024) return `${size} bytes`;
  if (size < 1024 * 1024) return `${(size / 1024).toFixed(1)} KB`;
  return `${(size / 1024 / 1024).toFixed(1)} MB`;
}

/** The tab's address, where a file it uploads goes. */
async function tabAddress(tabId: number): Promise<string | undefined> {
  const tab = await browser.tabs.get(tabId);
  return tab.url || undefined;
}

/** The tab's host, as the card names the site. */
async function tabHost(tabId: number): Promise<string | undefined> {
  const tab = await browser.tabs.get(tabId);
  try {
    return tab.url ? new URL(tab.url).host || undefined : undefined;
  } catch {
    return undefined;
  }
}
