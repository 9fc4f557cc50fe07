/**
 * A Vite plugin that keeps zod v3 out of the bundles where `@ai-sdk/provider-utils` pulls it in.
 *
 * The provider SDKs validate with zod v4 (`zod/v4`), as Sidequest does. `provider-utils` also
 * carries a converter of zod v3 schemas to JSON Schema, for callers that pass v3 schemas, and that
 * converter imports one thing from `zod/v3`: the `ZodFirstPartyTypeKind` enum, the type names it
 * compares `schema._def.typeName` with. Importing it evaluates all of zod v3 (≈ 56 KB minified in
 * the background). This plugin gives `provider-utils` a module with that enum alone, copied from
 * the installed zod at build time, so the converter compares the same strings and behaves as
 * before. Any other name the package takes from `zod/v3` fails the build (the module does not
 * export it); other importers of `zod/v3` get the real module.
 */
import { createRequire } from 'node:module';
import type { Plugin } from 'vite';

const IMPORTER = /[\\/]@ai-sdk[\\/]provider-utils[\\/]/;
const STUB = '\0sidequest:zod-v3-kinds';

/** The enum as the installed `zod/v3` defines it. */
export async function zodV3Kinds(): Promise<Record<string, string>> {
  const zodV3 = createRequire(import.meta.url).resolve('zod/v3');
  const { ZodFirstPartyTypeKind } = (await import(zodV3)) as { ZodFirstPartyTypeKind: Record<string, string> };
  if (!ZodFirstPartyTypeKind || typeof ZodFirstPartyTypeKind.ZodString !== 'string') {
    throw new Error('zod-v3-kinds: zod/v3 no longer exports ZodFirstPartyTypeKind; check build/zod-v3-kinds.ts.');
  }
  return { ...ZodFirstPartyTypeKind };
}

export function zodV3KindsOnly(): Plugin {
  return {
    name: 'sidequest:zod-v3-kinds',
    enforce: 'pre',
    resolveId(source, importer) {
      if (source === 'zod/v3' && importer && IMPORTER.test(importer)) return STUB;
      return null;
    },
    async load(id) {
      if (id !== STUB) return null;
      return `export const ZodFirstPartyTypeKind = ${JSON.stringify(await zodV3Kinds())};\n`;
    },
  };
}
