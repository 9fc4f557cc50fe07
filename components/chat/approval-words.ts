import type { PendingApproval } from '@/core/approvals/gate';
import { known } from '@/core/i18n/catalog';
import { formatList, locale, parts, say, t, type MessageKey } from '@/core/ui/i18n';
import { siteOf } from '@/core/ui/site';

/** How many characters of a tab's title the card shows (the rest is in its tooltip). */
export const TAB_TITLE_SHOWN = 80;
/** How much of a tab's title its tooltip holds (a page can set a title of megabytes). */
const TAB_TITLE_TOOLTIP = 1000;

/** Who asks: Sidequest, or the sub-agent by its label. */
export function askerOf(approval: PendingApproval): string {
  return approval.agent ? t('approval.subAgent', { name: approval.agent }) : 'Sidequest';
}

/** The site the call concerns, as a host ("no particular site" for none). */
export function siteShown(approval: PendingApproval): string {
  return siteOf(approval.site) || t('approval.noSite');
}

/** The first `count` graphemes of a text (a letter with its accents, an emoji with its joiners). */
function graphemes(text: string, count: number): string[] {
  const out: string[] = [];
  for (const { segment } of new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(text)) {
    if (out.length === count) break;
    out.push(segment);
  }
  return out;
}

/**
 * A title a page wrote, made one line: `text` to show, cut at `max` graphemes with an ellipsis;
 * `full` for the tooltip (itself cut at 1 000: a page can set a title of megabytes).
 */
export function cutTitle(title: string, max: number = TAB_TITLE_SHOWN): { text: string; full: string } {
  // Only the start is looked at: at most 4 UTF-16 units a grapheme is plenty for the tooltip.
  const start = title.slice(0, TAB_TITLE_TOOLTIP * 4);
  const flat = start.replace(/\s+/g, ' ').trim();
  const more = title.length > start.length;
  const tip = graphemes(flat, TAB_TITLE_TOOLTIP + 1);
  const full = tip.length > TAB_TITLE_TOOLTIP || more ? `${tip.slice(0, TAB_TITLE_TOOLTIP).join('')}…` : flat;
  if (!flat) return { text: t('approval.untitled'), full: '' };
  return { text: tip.length > max ? `${tip.slice(0, max - 1).join('').trimEnd()}…` : more ? `${flat}…` : flat, full };
}

/** How many characters of a name from the page the action line shows. */
export const ACTION_NAME_SHOWN = 80;

/** A piece of the action line: the sentence's own words, or a name from the page (shown isolated, `dir="auto"`). */
export type ActionPart = { text: string } | { name: string };

/**
 * The call in words ("Click 'Place order' on shop.example") in the page's language, cut at its
 * placeholders so that each name from the page is its own piece (cut at 80 graphemes, one line);
 * undefined when the card has no words or this language has no such message.
 */
export function actionParts(approval: PendingApproval): ActionPart[] | undefined {
  const words = approval.action;
  if (!words || !known(locale.value, words)) return undefined;
  if (typeof words.count === 'number') return [{ text: say(words) }];
  const params = words.params ?? {};
  return parts(words.key as MessageKey).map((p): ActionPart => {
    if ('text' in p) return p;
    const value = Object.prototype.hasOwnProperty.call(params, p.slot) ? params[p.slot] : undefined;
    if (typeof value === 'string') return { name: value.trim() ? cutTitle(value, ACTION_NAME_SHOWN).text : '' };
    if (typeof value === 'number') return { text: String(value) };
    return { text: value ? say(value) : `{${p.slot}}` };
  });
}

/** The action line as plain text (the screen reader's announcement). */
export function actionText(approval: PendingApproval): string {
  return (actionParts(approval) ?? []).map((p) => ('name' in p ? p.name : p.text)).join('');
}

/** What an outbound ask's sources are called: a host for an origin, a name as it is; each once. */
export function sourceNames(sources: readonly string[] | undefined): string[] {
  return [...new Set((sources ?? []).map((s) => siteOf(s)).filter(Boolean))];
}

/**
 * The sentence that says why the card asks, as plain text (the card marks up the same message):
 * "This sends data to evil.example after reading mail.example." for an outbound ask that names
 * where and what; what was read before words to keep (`instructs`); the address on the user's network for a local one; else the reason's words.
 */
export function reasonText(approval: PendingApproval): string {
  const sources = sourceNames(approval.sources);
  if (approval.reason === 'outbound' && approval.sink && sources.length) {
    const list = formatList(sources);
    return approval.sink === '*' ? t('approval.outboundAnywhere', { sources: list }) : t('approval.outboundTo', { sink: siteOf(approval.sink), sources: list });
  }
  if (approval.reason === 'instructs' && sources.length) return t('approval.instructsAfter', { sources: formatList(sources) });
  if (approval.reason === 'local' && approval.localAddress) return t('approval.localAddress', { ip: approval.localAddress });
  return t(`approval.why.${approval.reason}` as MessageKey);
}

/** What a screen reader hears when a card appears (the live region; the focus stays where it is). */
export function announcement(approval: PendingApproval): string {
  const action = actionText(approval);
  const why = action ? `${action} ${reasonText(approval)}` : reasonText(approval);
  return t('approval.announce', { title: t('approval.title', { who: askerOf(approval), tool: approval.tool, site: siteShown(approval) }), why });
}

/** A text cut in three around where it differs from another: before, the part that differs, after. */
export type Cut = [head: string, changed: string, tail: string];

/**
 * Where a tool's old and new words differ: the common start and end are kept whole words, the
 * middle of each is what changed (empty in the old words for an addition). Linear in the length
 * (the words come from a page or a server: no diff whose worst case they could choose).
 */
export function changedWords(before: string, after: string): { before: Cut; after: Cut } {
  // A cut at `i` falls between words (or at an end) in `text`.
  const between = (text: string, i: number) => i === 0 || i === text.length || /\s/.test(text[i - 1]!) || /\s/.test(text[i]!);
  const shorter = Math.min(before.length, after.length);
  let start = 0;
  while (start < shorter && before[start] === after[start]) start++;
  while (start > 0 && !(between(before, start) && between(after, start))) start--;
  let end = 0;
  while (end < shorter - start && before[before.length - 1 - end] === after[after.length - 1 - end]) end++;
  while (end > 0 && !(between(before, before.length - end) && between(after, after.length - end))) end--;
  const cut = (text: string): Cut => [text.slice(0, start), text.slice(start, text.length - end), text.slice(text.length - end)];
  return { before: cut(before), after: cut(after) };
}
