// The build's stand-in for `zod/v3` inside `@ai-sdk/provider-utils` (build/zod-v3-kinds.ts): the
// enum it gives is zod v3's own, and the package takes nothing else from `zod/v3` (the build also
// fails on a missing export).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, test } from 'vitest';
import { ZodFirstPartyTypeKind } from 'zod/v3';
import { zodV3Kinds, zodV3KindsOnly } from '@/build/zod-v3-kinds';

const require = createRequire(import.meta.url);

describe('zod-v3-kinds', () => {
  test('the stand-in enum is the installed zod v3 enum, name for name', async () => {
    expect(await zodV3Kinds()).toEqual({ ...ZodFirstPartyTypeKind });
  });

  test('provider-utils imports only ZodFirstPartyTypeKind from zod/v3', () => {
    const dist = readFileSync(require.resolve('@ai-sdk/provider-utils').replace(/index\.js$/, 'index.mjs'), 'utf8');
    const imports = [...dist.matchAll(/import\s*\{([^}]*)\}\s*from\s*"zod\/v3"/g)].map((m) => m[1]!.split(',').map((s) => s.trim().split(/\s+as\s+/)[0]).filter(Boolean));
    expect(imports.length).toBeGreaterThan(0);
    expect(new Set(imports.flat())).toEqual(new Set(['ZodFirstPartyTypeKind']));
    // Every import of zod/v3 is one of the named imports above (no namespace or side-effect import).
    expect(dist.match(/from\s*"zod\/v3"/g)).toHaveLength(imports.length);
  });

  test('only provider-utils is given the stand-in', async () => {
    const plugin = zodV3KindsOnly();
    const resolve = plugin.resolveId as (source: string, importer?: string) => string | null;
    expect(resolve('zod/v3', '/x/node_modules/@ai-sdk/provider-utils/dist/index.mjs')).toMatch(/zod-v3-kinds/);
    expect(resolve('zod/v3', '/x/node_modules/@modelcontextprotocol/sdk/dist/esm/server/zod-compat.js')).toBeNull();
    expect(resolve('zod', '/x/node_modules/@ai-sdk/provider-utils/dist/index.mjs')).toBeNull();
  });
});
