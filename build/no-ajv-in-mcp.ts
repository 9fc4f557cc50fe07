/**
 * A Vite plugin that keeps Ajv out of the bundle where the MCP SDK's client pulls it in.
 *
 * `@modelcontextprotocol/sdk`'s `Client` imports its default validator (`AjvJsonSchemaValidator`,
 * which compiles schemas with `new Function`) even when given another one. Both backgrounds' CSP
 * forbid that, so Sidequest always passes its own interpreted validator (plugins/mcp/validator.ts); this plugin
 * replaces the Ajv module with one that throws if it is ever used, which drops Ajv (and an eval
 * site `web-ext lint` reports) from the background bundle. Only imports made by the SDK itself are
 * touched.
 */
import type { Plugin } from 'vite';

const SDK = /[\\/]@modelcontextprotocol[\\/]sdk[\\/]/;
const AJV_PROVIDER = /(^|[\\/])validation[\\/]ajv-provider\.js$/;
const STUB = '\0sidequest:mcp-no-ajv';

export function noAjvInMcp(): Plugin {
  return {
    name: 'sidequest:mcp-no-ajv',
    enforce: 'pre',
    resolveId(source, importer) {
      if (importer && SDK.test(importer) && AJV_PROVIDER.test(source)) return STUB;
      return null;
    },
    load(id) {
      if (id !== STUB) return null;
      return `export class AjvJsonSchemaValidator {
  constructor() {
    throw new Error('Ajv compiles with new Function, which the extension CSP forbids: pass the SDK an interpreted validator (plugins/mcp/validator.ts).');
  }
}
`;
    },
  };
}
