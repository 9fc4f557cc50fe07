import { DIALOG_MESSAGE_CHARS, DIALOGS_REPORTED, type DialogSeen } from './page/dialogs-protocol';
import type { PageReply, PageRequest } from './protocol';

/**
 * What comes back from the page agent is page data: the agent runs in the tab's isolated world,
 * out of the page's reach, but its answers are made of what the page wrote (names, text, titles),
 * and a document is the page's to shape. So every reply is checked here for shape and cut to size
 * before anything reads it; a reply that does not fit is refused (`null`), never half-used.
 */

/** A document token, as `core/page/element-refs.ts` makes them. */
export const TOKEN = /^[a-z0-9]{4,12}$/;

/** The longest texts taken from a reply. */
export const LIMITS = {
  /** An outline: `max_length` is at most 100,000; the page's cut note comes on top. */
  outline: 110_000,
  /** What changed after an action (the agent cuts it; this is the backstop). */
  changed: 24_000,
  url: 8_000,
  title: 1_000,
  note: 2_000,
  error: 2_000,
  name: 1_000,
  short: 100,
  /** What a copy gave back (the page agent cuts at 20,000). */
  clipboard: 20_000,
} as const;

/** The dialogs an action met (`page/dialogs.ts`), checked: page data, cut. */
function dialogsOf(raw: unknown): DialogSeen[] {
  if (!Array.isArray(raw)) return [];
  const out: DialogSeen[] = [];
  for (const item of raw.slice(0, DIALOGS_REPORTED)) {
    if (!item || typeof item !== 'object') continue;
    const d = item as Record<string, unknown>;
    if (d.type !== 'alert' && d.type !== 'confirm' && d.type !== 'prompt') continue;
    out.push({
      type: d.type,
      message: text(d.message, DIALOG_MESSAGE_CHARS) ?? '',
      accepted: d.accepted === true,
      armed: d.armed === true,
      ...(typeof d.defaultText === 'string' ? { defaultText: text(d.defaultText, DIALOG_MESSAGE_CHARS) } : {}),
      ...(typeof d.text === 'string' ? { text: text(d.text, DIALOG_MESSAGE_CHARS) } : {}),
    });
  }
  return out;
}

type Fields = Record<string, unknown>;

/** A string field cut to `max` (with an ellipsis), or undefined when it is not a string. */
function text(value: unknown, max: number): string | undefined {
  if (typeof value !== 'string') return undefined;
  return value.length > max ? `${value.slice(0, max - 1)}…` : value;
}

function finite(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

/** The fields of an `ok` reply for this request, checked and cut; null when they do not fit. */
function fieldsFor(op: PageRequest['op'], raw: Fields, maxLength?: number): Fields | null {
  switch (op) {
    case 'outline': {
      const out = text(raw.text, Math.min(LIMITS.outline, (maxLength ?? LIMITS.outline) + 2_000));
      if (out === undefined || !finite(raw.nodes) || typeof raw.truncated !== 'boolean') return null;
      return { text: out, nodes: Math.max(0, Math.floor(raw.nodes)), truncated: raw.truncated, url: text(raw.url, LIMITS.url) ?? '', title: text(raw.title, LIMITS.title) ?? '' };
    }
    case 'click':
    case 'fill':
    case 'select':
    case 'press':
    case 'hover':
    case 'scroll':
    case 'drag':
    case 'clickAt':
    case 'hoverAt':
    case 'wait':
    case 'selectText':
    case 'clipboard':
    case 'upload':
    case 'dialog': {
      const changed = text(raw.changed, LIMITS.changed);
      if (changed === undefined) return null;
      const note = text(raw.note, LIMITS.note);
      const clipboard = text(raw.clipboard, LIMITS.clipboard);
      const dialogs = dialogsOf(raw.dialogs);
      return {
        changed,
        url: text(raw.url, LIMITS.url) ?? '',
        title: text(raw.title, LIMITS.title) ?? '',
        ...(note ? { note } : {}),
        ...(raw.navigating === true ? { navigating: true } : {}),
        ...(op === 'clipboard' && clipboard !== undefined ? { clipboard } : {}),
        ...(dialogs.length ? { dialogs } : {}),
        ...(finite(raw.moreDialogs) && raw.moreDialogs > 0 ? { moreDialogs: Math.floor(raw.moreDialogs) } : {}),
      };
    }
    case 'describe':
    case 'describeAt': {
      const role = text(raw.role, LIMITS.short);
      const tag = text(raw.tag, LIMITS.short);
      const name = text(raw.name, LIMITS.name);
      if (role === undefined || tag === undefined || name === undefined) return null;
      const type = text(raw.type, LIMITS.short);
      return {
        role,
        name,
        tag,
        ...(type !== undefined ? { type } : {}),
        ...(typeof raw.submitsPost === 'boolean' ? { submitsPost: raw.submitsPost } : {}),
        ...(typeof raw.editable === 'boolean' ? { editable: raw.editable } : {}),
        ...(raw.focused === true ? { focused: true } : {}),
        ...(typeof raw.link === 'string' ? { link: text(raw.link, LIMITS.url) } : {}),
        ...(typeof raw.form === 'string' ? { form: text(raw.form, LIMITS.url) } : {}),
      };
    }
    case 'rect': {
      const { x, y, width, height, devicePixelRatio } = raw;
      if (![x, y, width, height, devicePixelRatio].every(finite)) return null;
      if ((width as number) < 0 || (height as number) < 0 || (devicePixelRatio as number) <= 0 || (devicePixelRatio as number) > 16) return null;
      return { x, y, width, height, devicePixelRatio };
    }
    case 'bar':
      return {};
    default:
      return null;
  }
}

/**
 * The reply to `request`, checked: `{ ok: true, token, …fields }` with the fields its op has, or
 * `{ ok: false, error, stale? }`. Null when the reply is not one (wrong types, a missing token,
 * an unknown shape).
 */
export function checkReply(request: PageRequest, raw: unknown): PageReply | null {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return null;
  const reply = raw as Fields;
  if (reply.ok === false) {
    const error = text(reply.error, LIMITS.error);
    if (!error) return null;
    return { ok: false, error, ...(reply.stale === true ? { stale: true } : {}) };
  }
  if (reply.ok !== true) return null;
  const token = typeof reply.token === 'string' && TOKEN.test(reply.token) ? reply.token : undefined;
  // The bar needs no document; everything else reads one and says which.
  if (!token && request.op !== 'bar') return null;
  const fields = fieldsFor(request.op, reply, request.op === 'outline' ? request.maxLength : undefined);
  if (!fields) return null;
  return { ok: true, token: token ?? '', ...fields };
}
