import type { LanguageModelV3Message, LanguageModelV3Prompt, LanguageModelV3ToolResultPart } from '@ai-sdk/provider';
import type { ToolSpec } from '@/core/registry/types';
import { contentOutputValue, imageCount, imageSizeReplacer } from './tool-images';

// What the context window (`context-window.ts`) measures and cuts, cached by message: the
// prompt's messages are the same objects from one request to the next (`history.ts` caches
// them), so each is measured, stringified and shortened once, and a request's size is the sum of
// its messages'.

/** How long an old tool result may stay once the conversation is near the window. */
export const OLD_RESULT_CHARS = 600;

/** Each message's length as JSON, by whether images count as a screenshot (0) or as a note (1). */
const messageChars = [new WeakMap<LanguageModelV3Message, number>(), new WeakMap<LanguageModelV3Message, number>()] as const;
const toolChars = new WeakMap<ToolSpec, number>();

/**
 * `JSON.stringify(prompt, imageSizeReplacer(imageChars)).length`, a message at a time (a JSON tool
 * result counted as its own text).
 */
export function promptChars(prompt: LanguageModelV3Prompt, imageChars: number): number {
  let total = 2 + Math.max(0, prompt.length - 1);
  for (const m of prompt) total += charsOf(m, imageChars);
  return total;
}

/** One message's length as JSON (measured once). */
export function charsOf(m: LanguageModelV3Message, imageChars: number): number {
  const sizes = messageChars[imageChars ? 0 : 1];
  let size = sizes.get(m);
  if (size === undefined) {
    size = measure(m, imageChars);
    sizes.set(m, size);
  }
  return size;
}

function measure(m: LanguageModelV3Message, imageChars: number): number {
  if (m.role !== 'tool') return stringifyLength(m, imageChars);
  // A JSON result counts as its text (`outputText`, which cutting it needs anyway), so a large
  // result is stringified once, not once more inside its message.
  let text = 0;
  const content = m.content.map((part) => {
    if (part.type !== 'tool-result' || (part.output.type !== 'json' && part.output.type !== 'error-json')) return part;
    text += outputText(part).length - 'null'.length;
    return { ...part, output: { ...part.output, value: null } };
  });
  return stringifyLength({ ...m, content }, imageChars) + text;
}

/**
 * `JSON.stringify(m, imageSizeReplacer(imageChars)).length`; the replacer (a call for every value)
 * only where the JSON shows a part it replaces.
 */
function stringifyLength(m: LanguageModelV3Message, imageChars: number): number {
  const json = JSON.stringify(m);
  if (!json.includes('"type":"image-data"') && !json.includes('"type":"file"')) return json.length;
  return JSON.stringify(m, imageSizeReplacer(imageChars)).length;
}

/**
 * `promptChars` of prompts that begin as the last one measured did (a run's prompts, and each of
 * their shortened forms, grow by a step at a time): the messages they share are summed already,
 * so only the messages after them are looked up.
 */
export class RunningChars {
  private last: LanguageModelV3Prompt = [];
  /** Of `last`'s first i messages: their length, their system messages' length and count. */
  private sums = [0];
  private systemSums = [0];
  private systemCounts = [0];
  private imageChars = -1;
  /** The system messages of the prompt measured last, as a prompt of their own (`promptChars`). */
  systemChars = 2;

  of(prompt: LanguageModelV3Prompt, imageChars: number): number {
    if (imageChars !== this.imageChars) {
      this.imageChars = imageChars;
      this.last = [];
    }
    const { last, sums, systemSums, systemCounts } = this;
    let same = 0;
    for (const n = Math.min(prompt.length, last.length); same < n && prompt[same] === last[same]; ) same++;
    sums.length = systemSums.length = systemCounts.length = same + 1;
    for (let i = same; i < prompt.length; i++) {
      const m = prompt[i]!;
      const size = charsOf(m, imageChars);
      const system = m.role === 'system';
      sums.push(sums[i]! + size);
      systemSums.push(systemSums[i]! + (system ? size : 0));
      systemCounts.push(systemCounts[i]! + (system ? 1 : 0));
    }
    // Prompts are never changed once made (each shortening makes a new array).
    this.last = prompt;
    const n = prompt.length;
    this.systemChars = 2 + Math.max(0, systemCounts[n]! - 1) + systemSums[n]!;
    return 2 + Math.max(0, n - 1) + sums[n]!;
  }
}

/** `JSON.stringify(tools.map((t) => [t.name, t.description, t.inputSchema])).length` (0 for none), a tool at a time. */
export function toolsChars(tools: readonly ToolSpec[]): number {
  if (!tools.length) return 0;
  let total = 2 + tools.length - 1;
  for (const t of tools) {
    let size = toolChars.get(t);
    if (size === undefined) {
      size = JSON.stringify([t.name, t.description, t.inputSchema]).length;
      toolChars.set(t, size);
    }
    total += size;
  }
  return total;
}

/**
 * Every tool message but the last cut to the old-result size, for prompts that begin as the last
 * one did: the messages before both prompts' latest tool message are taken from the last one's
 * shortened form.
 */
export class RunningShortenOld {
  private input: LanguageModelV3Prompt = [];
  private output: LanguageModelV3Prompt = [];
  private latest = -1;

  of(prompt: LanguageModelV3Prompt): LanguageModelV3Prompt {
    const latest = lastIndex(prompt, (m) => m.role === 'tool');
    const { input } = this;
    let same = 0;
    for (const n = Math.min(latest, this.latest, input.length); same < n && prompt[same] === input[same]; ) same++;
    const output = this.output.slice(0, same);
    for (let i = same; i < prompt.length; i++) {
      const m = prompt[i]!;
      output.push(m.role === 'tool' && i !== latest ? shortenResults(m, OLD_RESULT_CHARS) : m);
    }
    this.input = prompt;
    this.output = output;
    this.latest = latest;
    return output;
  }
}

/** The last tool message cut to `max` characters a result. */
export function shortenLatest(prompt: LanguageModelV3Prompt, max: number): LanguageModelV3Prompt {
  const last = lastIndex(prompt, (m) => m.role === 'tool');
  return prompt.map((m, i) => (m.role === 'tool' && i === last ? shortenResults(m, max) : m));
}

export function lastIndex<T>(items: readonly T[], test: (item: T) => boolean): number {
  for (let i = items.length - 1; i >= 0; i--) if (test(items[i]!)) return i;
  return -1;
}

/** Shortened forms of tool messages, by the message and the size they were cut to (a few sizes each). */
const shortened = new WeakMap<LanguageModelV3Message, Map<number, LanguageModelV3Message>>();

/** A tool message whose results are cut to `max` characters each (0: a note only); made once per message and size. */
export function shortenResults(message: Extract<LanguageModelV3Message, { role: 'tool' }>, max: number): LanguageModelV3Message {
  let forms = shortened.get(message);
  const known = forms?.get(max);
  if (known) return known;
  const made = cutResults(message, max);
  if (!forms) shortened.set(message, (forms = new Map()));
  // The sizes used are few (the old-result size, the latest share, what is left): keep the last four.
  if (forms.size >= 4) forms.delete(forms.keys().next().value!);
  forms.set(max, made);
  return made;
}

function cutResults(message: Extract<LanguageModelV3Message, { role: 'tool' }>, max: number): LanguageModelV3Message {
  let cut = false;
  const content = message.content.map((part) => {
    if (part.type !== 'tool-result') return part;
    const text = outputText(part);
    if (text.length <= max + 120) return part;
    cut = true;
    const note = `… [shortened from ${text.length} characters to fit the model's context window; the full result is kept in the conversation]`;
    const value = `${text.slice(0, max)}${note}`;
    const error = part.output.type === 'error-text' || part.output.type === 'error-json';
    return { ...part, output: error ? { type: 'error-text' as const, value } : { type: 'text' as const, value } };
  });
  // Nothing cut: the message itself (its size is known already).
  return cut ? { ...message, content } : message;
}

/** Results as text, by part (a JSON result is stringified once). */
const outputTexts = new WeakMap<LanguageModelV3ToolResultPart, string>();

export function outputText(part: LanguageModelV3ToolResultPart): string {
  let text = outputTexts.get(part);
  if (text === undefined) {
    text = outputTextOf(part);
    outputTexts.set(part, text);
  }
  return text;
}

function outputTextOf(part: LanguageModelV3ToolResultPart): string {
  const output = part.output;
  if (output.type === 'text' || output.type === 'error-text') return output.value;
  if (output.type === 'json' || output.type === 'error-json') return JSON.stringify(output.value);
  if (output.type === 'content') {
    const images = imageCount(output);
    return `${JSON.stringify(contentOutputValue(output))}${images ? ` [${images} image${images === 1 ? '' : 's'}]` : ''}`;
  }
  return JSON.stringify(output);
}
