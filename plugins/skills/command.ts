import { said, type Said } from '@/core/i18n/catalog';
import { PARAM_NAME } from './placeholders';
import type { SkillParam } from './types';

/**
 * The `/name a=b c="d e"` line that runs a skill: `splitCommand` tells whether a message is a
 * command at all (and which name it calls), `parseArgs` reads its arguments against the skill's
 * parameters, `formatCommand` writes the line back (Run in the settings, a schedule's run).
 * Pure functions: the sidebar may use them as the background does.
 */

/** A skill's name: lowercase letters, digits and dashes, starting with a letter or digit (as `schema.ts` checks, without zod here). */
export const SKILL_NAME = /^[a-z0-9][a-z0-9-]*$/;
/** The longest name (`save_skill` and the save form say the same). */
export const SKILL_NAME_MAX = 40;
export { PARAM_NAME };

/** A message that calls a skill by name: the name (lowercased) and the text after it. */
export interface SplitCommand {
  name: string;
  rest: string;
}

/**
 * The name a message calls and the rest of it, or undefined when it is no command: it must start
 * with `/` and a name, followed by a space, a line break or nothing (`/usr/bin` and `/ hi` are none).
 */
export function splitCommand(text: string): SplitCommand | undefined {
  const match = /^\/([A-Za-z0-9][A-Za-z0-9-]*)(?=\s|$)/.exec(text.trimStart());
  if (!match || match[1]!.length > SKILL_NAME_MAX) return undefined;
  return { name: match[1]!.toLowerCase(), rest: text.trimStart().slice(match[0].length).trim() };
}

type CommandError = 'unclosed' | 'badKey' | 'noParams' | 'loose' | 'unknown' | 'twice';

export type ParsedArgs = { ok: true; args: Record<string, string> } | { ok: false; error: Said };

/**
 * Reads the arguments after `/name` for a skill with these parameters: `key=value` and
 * `key="a value"` (or `'…'`; `\"`, `\'` and `\\` inside quotes), in any order. A skill with exactly
 * one parameter also takes the text alone: `/search red shoes` (or `/search "red shoes"`).
 * Parameters not given are left out (the skill's examples are their defaults). Errors are words
 * for the user, naming what went wrong and what the skill takes.
 */
export function parseArgs(name: string, rest: string, params: SkillParam[]): ParsedArgs {
  const takes = params.map((p) => p.name).join(', ');
  const fail = (key: CommandError, values: Record<string, string> = {}): ParsedArgs => ({
    ok: false,
    error: said(`skills.replay.command.${key}`, { name, takes: takes || '—', ...values }),
  });
  const text = rest.trim();
  if (!text) return { ok: true, args: {} };
  const tokens = tokenize(text);
  if ('error' in tokens) {
    // `/search don't "stop` still searches: a lone value needs no quoting rules.
    if (params.length === 1 && !text.toLowerCase().startsWith(`${params[0]!.name}=`)) return { ok: true, args: { [params[0]!.name]: text } };
    return fail(tokens.error, { at: tokens.at });
  }
  const named = tokens.list.filter((t) => t.key !== undefined);
  const loose = tokens.list.filter((t) => t.key === undefined);
  if (loose.length) {
    // The text alone is the value of the only parameter: the whole text, unless it is one quoted value.
    if (params.length === 1 && !named.length) {
      const only = loose.length === 1 && loose[0]!.quoted ? loose[0]!.value : text;
      return { ok: true, args: { [params[0]!.name]: only } };
    }
    if (!params.length) return fail('noParams', { text: shorten(text) });
    return fail('loose', { text: shorten(loose.map((t) => t.raw).join(' ')) });
  }
  const args: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const { key, value } of named) {
    const known = params.find((p) => p.name === key!.toLowerCase());
    if (!known) return params.length ? fail('unknown', { arg: shorten(key!) }) : fail('noParams', { text: shorten(key!) });
    if (Object.prototype.hasOwnProperty.call(args, known.name)) return fail('twice', { arg: known.name });
    args[known.name] = value;
  }
  return { ok: true, args: { ...args } };
}

/** The line that runs the skill with these arguments (values quoted where they need it). */
export function formatCommand(name: string, args: Record<string, string>): string {
  const parts = Object.entries(args).map(([key, value]) => `${key}=${quote(value)}`);
  return [`/${name}`, ...parts].join(' ');
}

function quote(value: string): string {
  if (value && !/[\s"'\\=]/.test(value)) return value;
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

interface Token {
  /** Set for `key=value`. */
  key?: string;
  value: string;
  quoted: boolean;
  /** As typed, for the error's words. */
  raw: string;
}

type Tokens = { list: Token[] } | { error: 'unclosed' | 'badKey'; at: string };

/** Splits on whitespace outside quotes; `key=` before a value (quoted or not) names it. */
function tokenize(text: string): Tokens {
  const list: Token[] = [];
  let i = 0;
  while (i < text.length) {
    if (/\s/.test(text[i]!)) {
      i++;
      continue;
    }
    const start = i;
    let key: string | undefined;
    const keyMatch = /^([^\s=:"']+)=/.exec(text.slice(i));
    if (keyMatch) {
      key = keyMatch[1]!;
      if (!PARAM_NAME.test(key.toLowerCase())) return { error: 'badKey', at: shorten(key) };
      i += keyMatch[0].length;
    }
    const open = text[i];
    if (open === '"' || open === "'") {
      let value = '';
      let j = i + 1;
      let closed = false;
      while (j < text.length) {
        const c = text[j]!;
        if (c === '\\' && (text[j + 1] === open || text[j + 1] === '\\')) {
          value += text[j + 1];
          j += 2;
          continue;
        }
        if (c === open) {
          closed = true;
          j++;
          break;
        }
        value += c;
        j++;
      }
      if (!closed) return { error: 'unclosed', at: shorten(text.slice(start)) };
      // A closing quote glued to more text (`"a"b`) is read as one word with the rest.
      let tail = '';
      while (j < text.length && !/\s/.test(text[j]!)) tail += text[j++];
      list.push({ key, value: value + tail, quoted: !tail, raw: text.slice(start, j) });
      i = j;
      continue;
    }
    let j = i;
    while (j < text.length && !/\s/.test(text[j]!)) j++;
    list.push({ key, value: text.slice(i, j), quoted: false, raw: text.slice(start, j) });
    i = j;
  }
  return { list };
}

function shorten(text: string, max = 60): string {
  const flat = text.replace(/\s+/g, ' ');
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}
