import { Validator, type OutputUnit, type Schema } from '@cfworker/json-schema';
import type { InputValidator, ValidatorFactory } from '@/core/registry/types';

/**
 * Validates page tools' input in the background, where no-eval CSPs (MV3 service worker, Firefox's
 * MV2 background) forbid ajv's compiled code: `@cfworker/json-schema` interprets the schema
 * instead. Draft-07, as the reference implementation (ajv) uses; every error is collected and
 * said in one sentence, so the registry's message reads `Invalid parameters for tool X: …`.
 */
export function interpretedValidator(schema: unknown): InputValidator {
  const validator = new Validator((schema ?? {}) as Schema | boolean, '7', false);
  return (input) => {
    const result = validator.validate(input);
    return result.valid ? null : formatErrors(result.errors);
  };
}

/** The registry's fallback for tools that are not built in: page tools. */
export const pageToolValidators: ValidatorFactory = (tool) => interpretedValidator(tool.inputSchema);

/** Wrapper errors ("Property x does not match schema") only repeat what the leaf errors say. */
const WRAPPERS = new Set(['properties', 'items', 'additionalItems', 'allOf', 'anyOf', 'oneOf', '$ref', 'false', 'patternProperties', 'dependencies', 'if', 'then', 'else', 'contains', 'propertyNames', 'unevaluatedProperties', 'unevaluatedItems', 'prefixItems']);

export function formatErrors(errors: OutputUnit[]): string {
  let useful = errors.filter((e) => !WRAPPERS.has(e.keyword));
  // Keep the wrapper's own sentence when it is all there is (an additionalProperties: false).
  if (!useful.length) useful = errors;
  if (!useful.length) return 'the input does not match the schema';
  const parts = useful.slice(0, 5).map((e) => {
    const where = e.instanceLocation.replace(/^#\/?/, '').replace(/\//g, '.');
    const text = e.error.replace(/^Instance /, '').replace(/\.$/, '');
    return where ? `${where}: ${text}` : text;
  });
  if (useful.length > 5) parts.push(`and ${useful.length - 5} more`);
  return parts.join('; ');
}
