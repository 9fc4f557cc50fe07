/**
 * A Vite plugin that compiles every built-in tool's JSON Schema with ajv at build time.
 *
 * Why: MV3 extension pages and service workers (and Firefox's MV2 background) forbid `eval` and
 * `new Function`, which is how ajv normally compiles a schema. Ajv's standalone mode writes the
 * validators out as plain code instead, so the extension ships finished functions and never
 * evaluates a string at run time. The schemas come from `plugins/schemas.ts`; the module
 * `virtual:tool-validators` exports `validators`, keyed by tool name.
 */
import Ajv from 'ajv';
import standaloneCode from 'ajv/dist/standalone/index.js';
import { createJiti } from 'jiti';
import path from 'node:path';
import type { Plugin } from 'vite';

const VIRTUAL_ID = 'virtual:tool-validators';
const RESOLVED_ID = '\0' + VIRTUAL_ID;

/** Options every validator is compiled with; shared with the run-time fallback so both agree. */
export const AJV_OPTIONS = {
  allErrors: true,
  strict: false,
} as const;

/** Compiles a map of schemas into one ES module's source that exports `validators`. */
export function compileValidators(schemas: Record<string, object>): string {
  const ajv = new Ajv({ ...AJV_OPTIONS, code: { source: true, esm: true } });
  const exportNames: Record<string, string> = {};
  const names = Object.keys(schemas).sort();
  names.forEach((name, i) => {
    const id = `tool_${i}`;
    ajv.addSchema(schemas[name]!, id);
    exportNames[id] = id;
  });
  let code = standaloneCode(ajv, exportNames);
  // Standalone code refers to ajv's runtime helpers with require(); turn each into an import.
  const imports: string[] = [];
  code = code.replace(/require\("([^"]+)"\)/g, (_match, spec: string) => {
    const local = `__ajv_runtime_${imports.length}`;
    imports.push(`import * as ${local} from ${JSON.stringify(spec)};`);
    return `(${local}.default && ${local}.default.default ? ${local}.default : ${local})`;
  });
  const table = names.map((name, i) => `  ${JSON.stringify(name)}: tool_${i},`).join('\n');
  return `${imports.join('\n')}\n${code}\nexport const validators = {\n${table}\n};\n`;
}

/** The plugin: resolves `virtual:tool-validators` to validators compiled from `schemasFile`. */
export function toolValidators(schemasFile = 'plugins/schemas.ts'): Plugin {
  let root = process.cwd();
  return {
    name: 'sidequest:tool-validators',
    configResolved(config) {
      root = config.root;
    },
    resolveId(id) {
      return id === VIRTUAL_ID ? RESOLVED_ID : undefined;
    },
    async load(id) {
      if (id !== RESOLVED_ID) return undefined;
      const file = path.resolve(root, schemasFile);
      // A fresh jiti each load, so a schema edited during `wxt` dev is picked up.
      const jiti = createJiti(import.meta.url, { moduleCache: false, fsCache: false });
      const mod = await jiti.import<{ builtinSchemas: Record<string, object> }>(file);
      this.addWatchFile(file);
      return compileValidators(mod.builtinSchemas);
    },
  };
}
