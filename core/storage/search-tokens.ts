/**
 * The words of the search index (`search-index.ts`), for text and for queries alike.
 *
 * - Letters and digits make words; everything else separates them (`zebra-needle` is two words).
 * - Lower-case, compatibility forms folded (full-width letters, ligatures), diacritics removed
 *   (`Ünïcode` → `unicode`, Vietnamese `Tiếng Việt` → `tieng viet`, Hebrew points dropped), and a
 *   few letters without a decomposition mapped by hand (`đ` → `d`, `ß` → `ss`…).
 * - Scripts written without spaces (Chinese, Japanese kana, Korean Hangul) have no words to
 *   split: a run of them is indexed as its overlapping pairs of characters (bigrams) plus its
 *   last character alone, so every character starts some token. A query's run of two characters
 *   or more must have all its pairs; a single character matches any token it starts.
 * - A query's word matches the words it starts (a word prefix: `hol` finds `holiday`); a query
 *   word of one letter must be a whole word (a prefix that short would match most of the index).
 */

/** Longest word kept (longer ones, such as hashes or long URLs, are cut: their prefix still matches). */
export const MAX_TOKEN = 32;

const WORD = /[\p{L}\p{N}\p{M}]+/gu;
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+/u;
const CJK_SPLIT = /([\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+)/u;
const MARKS = /\p{M}+/gu;
const BY_HAND: Record<string, string> = { đ: 'd', ø: 'o', ł: 'l', ß: 'ss', æ: 'ae', œ: 'oe', ı: 'i', þ: 'th', ð: 'd', ħ: 'h' };
const BY_HAND_RE = new RegExp(`[${Object.keys(BY_HAND).join('')}]`, 'g');

/** A word of a space-separated script, folded: no diacritics, lower-case. */
export function foldWord(word: string): string {
  return word.normalize('NFD').replace(MARKS, '').replace(BY_HAND_RE, (c) => BY_HAND[c]!);
}

interface Piece {
  text: string;
  cjk: boolean;
}

/** The words of a text, each marked as a CJK run or a folded word. */
function pieces(text: string): Piece[] {
  const out: Piece[] = [];
  // NFKC first: full-width Latin becomes Latin, composed kana stay composed.
  for (const [word] of text.normalize('NFKC').toLowerCase().matchAll(WORD)) {
    if (!CJK.test(word)) {
      const folded = foldWord(word);
      if (folded) out.push({ text: folded, cjk: false });
      continue;
    }
    for (const part of word.split(CJK_SPLIT)) {
      if (!part) continue;
      if (CJK.test(part)) out.push({ text: part.replace(MARKS, ''), cjk: true });
      else {
        const folded = foldWord(part);
        if (folded) out.push({ text: folded, cjk: false });
      }
    }
  }
  return out;
}

/** The distinct tokens of a text, as the index keeps them. */
export function tokenize(text: string, into: Set<string> = new Set()): Set<string> {
  for (const piece of pieces(text)) {
    if (!piece.cjk) {
      into.add(piece.text.slice(0, MAX_TOKEN));
      continue;
    }
    const chars = [...piece.text];
    for (let i = 0; i + 1 < chars.length; i++) into.add(chars[i]! + chars[i + 1]!);
    into.add(chars.at(-1)!);
  }
  return into;
}

/** One term of a query: the tokens it matches are `[from, to]` (a prefix, or one exact token). */
export interface QueryTerm {
  from: string;
  to: string;
}

/** A query's terms past this many are ignored: each costs an index read, and a pasted page must not. */
export const MAX_QUERY_TERMS = 32;

/**
 * The terms of a query: a conversation matches when each term matches one of its tokens (in its
 * title or any of its messages). Only the first `MAX_QUERY_TERMS` count.
 */
export function queryTerms(query: string): QueryTerm[] {
  const terms = new Map<string, QueryTerm>();
  const add = (key: string, term: QueryTerm) => {
    if (terms.size < MAX_QUERY_TERMS) terms.set(key, term);
  };
  const prefix = (p: string) => add(`p:${p}`, { from: p, to: `${p}\uffff` });
  const exact = (t: string) => add(`e:${t}`, { from: t, to: t });
  for (const piece of pieces(query)) {
    if (terms.size >= MAX_QUERY_TERMS) break;
    if (piece.cjk) {
      const chars = [...piece.text];
      if (chars.length === 1) prefix(chars[0]!);
      else for (let i = 0; i + 1 < chars.length; i++) exact(chars[i]! + chars[i + 1]!);
    } else if ([...piece.text].length === 1) exact(piece.text);
    else prefix(piece.text.slice(0, MAX_TOKEN));
  }
  return [...terms.values()];
}
