import type { InputValidator, Plugin, ToolDefinition, ValidatorFactory } from './types';

/** The shape of an ajv validate function (compiled at build time or at run time). */
export interface AjvValidateFunction {
  (data: unknown): boolean;
  errors?: AjvError[] | null;
}

export interface AjvError {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}

/** Turns ajv's errors into one sentence the model can act on. */
export function formatAjvErrors(errors: AjvError[] | null | undefined): string {
  if (!errors?.length) return 'the input does not match the schema';
  const parts = errors.slice(0, 5).map((e) => {
    const where = e.instancePath ? e.instancePath.slice(1).replace(/\//g, '.') : '';
    let message = e.message ?? `fails "${e.keyword}"`;
    if (e.keyword === 'additionalProperties' && typeof e.params.additionalProperty === 'string') {
      message = `has an unknown property "${e.params.additionalProperty}"`;
    } else if (e.keyword === 'enum' && Array.isArray(e.params.allowedValues)) {
      message = `must be one of ${e.params.allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
    }
    return where ? `${where} ${message}` : `input ${message}`;
  });
  if (errors.length > 5) parts.push(`and ${errors.length - 5} more`);
  return parts.join('; ');
}

/** Wraps an ajv validate function as the registry's validator. */
export function fromAjv(validate: AjvValidateFunction): InputValidator {
  return (input) => (validate(input) ? null : formatAjvErrors(validate.errors));
}

/**
 * The validator strategy for built-in tools: ajv functions compiled at build time
 * (`virtual:tool-validators`), looked up by tool name. A built-in tool whose schema was not
 * compiled is a programming error and fails at registration, not at the first call.
 * Other sources (page tools) go to `fallback`.
 */
export function precompiledValidators(
  compiled: Record<string, AjvValidateFunction>,
  fallback?: ValidatorFactory,
): ValidatorFactory {
  return (tool: ToolDefinition, plugin: Plugin) => {
    if (plugin.source === 'builtin') {
      const validate = compiled[tool.name];
      if (!validate) {
        throw new Error(`No compiled validator for built-in tool "${tool.name}": add its schema to plugins/schemas.ts.`);
      }
      return fromAjv(validate);
    }
    if (!fallback) throw new Error(`No validator available for ${plugin.source} tool "${tool.name}".`);
    return fallback(tool, plugin);
  };
}
