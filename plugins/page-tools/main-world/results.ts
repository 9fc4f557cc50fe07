/**
 * Results of page tools as they cross to the agent: `{error: …}` is a failure, anything else is
 * made JSON-safe by the reference's rules (an element becomes its reference) and cut when long.
 */
import type { ElementRefs } from '@/core/page/element-refs';
import { toJsonSafe } from '@/core/registry/json-safe';
import type { WireCallResult } from '../wire';
import { captureIntrinsics, type Intrinsics, type PageWindow } from './intrinsics';
import { errorText, LIMITS } from './shared';

/**
 * The failure a result is shaped as, or undefined: `{error: …}` (how React's DevTools tools and
 * others answer a failure) is a failed call, not a result. `{error: null}`/`false` is not.
 * `I` defaults to this realm's built-ins (tests); the bridge passes its own.
 */
export function errorShaped(value: unknown, I: Intrinsics = captureIntrinsics(globalThis as PageWindow)): string | undefined {
  if (!value || typeof value !== 'object' || I.isArray(value)) return undefined;
  const proto = I.getPrototypeOf(value);
  if (proto !== null && proto !== I.ObjectPrototype && I.getPrototypeOf(proto) !== null) return undefined;
  if (!I.hasOwn(value, 'error')) return undefined;
  const error = (value as { error?: unknown }).error;
  if (error === undefined || error === null || error === false) return undefined;
  const text = errorText(I, error);
  return text || 'The tool answered with an error without a message.';
}

/**
 * Makes a value JSON-safe by the reference rules and serializes it, cut when it is too long. With
 * `refs`, an element of the page becomes its reference and what identifies it (tag, id, text,
 * selector), which the model can pass back to an element parameter.
 */
export function serializeResult(value: unknown, I: Intrinsics = captureIntrinsics(globalThis as PageWindow), refs?: ElementRefs): WireCallResult {
  let json: string;
  try {
    // One description per element per result, however often it appears in it.
    const seen = new I.Map<Element, unknown>();
    const element = (el: Element) => {
      if (!seen.has(el)) seen.set(el, refs!.describe(el));
      return seen.get(el);
    };
    const safe = toJsonSafe(value, refs ? { element } : {});
    json = safe === undefined ? '' : (I.stringify(safe) ?? '');
  } catch (error) {
    return { ok: false, error: `The tool's result could not be turned into JSON: ${errorText(I, error)}` };
  }
  if (json.length > LIMITS.resultChars) return { ok: true, json: I.strSlice(json, 0, LIMITS.resultChars), cut: { totalChars: json.length } };
  return { ok: true, json };
}
