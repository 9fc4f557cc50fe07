import { format, Validator, type OutputUnit, type Schema, type SchemaDraft, type ValidationResult } from '@cfworker/json-schema';
import { PatternError, SAFE_REGEX_LIMITS, withPatternBudget } from '@/core/registry/safe-regex';
import type { InputValidator, ValidatorFactory } from '@/core/registry/types';

/**
 * Validates every tool's input (built-in, page, any other source) in the background, where no-eval
 * CSPs (MV3 service worker, Firefox's MV2 background) forbid compiling validators at run time:
 * `@cfworker/json-schema` interprets the schema instead. Draft-07, as the reference
 * implementation uses; every error is collected and said in one sentence, in one wording for all
 * tools, so the registry's message reads `Invalid parameters for tool X: …`.
 *
 * Schemas come from pages and MCP servers: their `pattern` and `patternProperties` run on the
 * linear-time engine (the build routes them to core/registry/safe-regex.ts), within a budget of
 * work per validation; an input too long to check within it is refused, as is a schema whose
 * pattern the engine cannot take. `draft`: MCP's output schemas are 2020-12.
 */
export function interpretedValidator(schema: unknown, draft: SchemaDraft = '7'): InputValidator {
  const validator = new Validator((schema ?? {}) as Schema | boolean, draft, false);
  return (input) => {
    let outcome: { result: ValidationResult; exhausted: boolean };
    try {
      outcome = withPatternBudget(SAFE_REGEX_LIMITS.validationWork, () => validator.validate(input));
    } catch (error) {
      if (error instanceof PatternError) return error.message;
      throw error;
    }
    const { result, exhausted } = outcome;
    if (exhausted) {
      const where = result.errors.find((e) => e.keyword === 'pattern' || e.keyword === 'patternProperties')?.instanceLocation.replace(/^#\/?/, '').split('/').filter(Boolean).map(decodeURIComponent).join('.');
      return `${where ? `${where} is` : 'the input has text'} too long to check against the schema's patterns in time; send shorter text`;
    }
    return result.valid ? null : formatErrors(result.errors);
  };
}

/**
 * The library's `url` format (not a draft-07 format, but pages may name it) tests a regular
 * expression that backtracks exponentially (`http://` and thirty letters and a `!` take seconds,
 * a few more take hours): an address the URL parser takes, with an http(s) or ftp scheme and a
 * host, instead.
 */
format.url = (value: string) => {
  if (!/^(?:https?|ftp):\/\//i.test(value)) return false;
  try {
    return new URL(value).hostname !== '';
  } catch {
    return false;
  }
};

/** The registry's validator factory: one strategy, one wording, whatever the tool's source. */
export const interpretedValidators: ValidatorFactory = (tool) => interpretedValidator(tool.inputSchema);

/** Wrapper errors ("Property x does not match schema") only repeat what the leaf errors say. */
const WRAPPERS = new Set(['properties', 'items', 'additionalItems', 'allOf', '$ref', 'false', 'patternProperties', 'dependencies', 'if', 'then', 'else', 'contains', 'propertyNames', 'unevaluatedProperties', 'unevaluatedItems', 'prefixItems']);

/**
 * Says what is wrong with an input in one sentence, the same wording for every tool:
 * `tab_id must be integer (got string)`, `url is required`, `colour is not a parameter of this
 * tool`, `mode must be one of "a", "b"`, `n: 0 is less than 1`. At most five problems.
 */
export function formatErrors(errors: OutputUnit[]): string {
  let useful = errors.filter((e) => !WRAPPERS.has(e.keyword));
  // Keep a wrapper's own sentence when it is all there is.
  if (!useful.length) useful = errors;
  if (!useful.length) return 'the input does not match the schema';
  const parts = useful.slice(0, 5).map(describe);
  if (useful.length > 5) parts.push(`and ${useful.length - 5} more`);
  return parts.join('; ');
}

function describe(e: OutputUnit): string {
  const where = e.instanceLocation.replace(/^#\/?/, '').split('/').filter(Boolean).map(decodeURIComponent).join('.');
  const at = (name: string) => (where ? `${where}.${name}` : name);
  const quoted = /"([^"]*)"/.exec(e.error)?.[1];
  switch (e.keyword) {
    case 'type': {
      const got = /type "([^"]+)"/.exec(e.error)?.[1];
      const expected = /Expected "([^"]+)"/.exec(e.error)?.[1];
      if (expected) return `${where || 'the input'} must be ${expected}${got ? ` (got ${got})` : ''}`;
      break;
    }
    case 'required':
      if (quoted !== undefined) return `${at(quoted)} is required`;
      break;
    case 'additionalProperties':
      if (quoted !== undefined) return `${at(quoted)} is not a parameter of this tool`;
      break;
    case 'enum': {
      const list = /any of \[(.*)\]/.exec(e.error)?.[1];
      if (list) return `${where || 'the input'} must be one of ${list.split(',').join(', ')}`;
      break;
    }
  }
  const text = e.error.replace(/^Instance /, '').replace(/\.$/, '');
  return where ? `${where}: ${text}` : text;
}
