import type { jsonSchemaValidator, JsonSchemaValidatorResult } from '@modelcontextprotocol/sdk/validation/types.js';
import { interpretedValidator } from '@/core/registry/interpreted-validator';

/**
 * The JSON Schema validator the SDK's client is given (it checks a tool's structured result
 * against the output schema the server declared): the registry's own, interpreted (no eval) and
 * running the server's `pattern`s on the linear-time engine within a budget. The SDK's
 * `CfWorkerJsonSchemaValidator` would run them in the backtracking `RegExp`: a server could
 * freeze the background with its own schema and result. Output schemas are 2020-12 (MCP's
 * default dialect).
 */
export const mcpSchemaValidator: jsonSchemaValidator = {
  getValidator<T>(schema: unknown) {
    const validate = interpretedValidator(schema, '2020-12');
    return (input: unknown): JsonSchemaValidatorResult<T> => {
      const error = validate(input);
      return error === null ? { valid: true, data: input as T, errorMessage: undefined } : { valid: false, data: undefined, errorMessage: error };
    };
  },
};
