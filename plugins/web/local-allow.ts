import type { PluginStorage } from '@/core/storage/plugin-data';
import { localNetworkKind } from '@/core/net/local-network';

/** Where the test-only allow-list is kept: a secret of the web plugin (`web.test.localOrigins` in IndexedDB). */
export const TEST_LOCAL_ORIGINS_NAME = 'test.localOrigins';

/** The origin of an http(s) URL, or ''. */
function originOf(value: string): string {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : '';
  } catch {
    return '';
  }
}

/**
 * Which local-network addresses `web_fetch` may request:
 * - the origins the user set up in settings (`ctx.configuredOrigins`: the model providers', Ollama
 *   on localhost by default);
 * - loopback origins listed by the end-to-end tests, which serve their pages on 127.0.0.1. Tests
 *   write a JSON array of origins (`["http://127.0.0.1:41234"]`) under `web.test.localOrigins` in
 *   the `secrets` table from an extension page (tests/e2e/helpers.mjs `allowLocalOrigins`). No
 *   message, setting or UI reads or writes it; web pages and content scripts cannot reach the
 *   extension's IndexedDB; only loopback origins are taken, anything else is ignored. The same
 *   mechanism as the search engines' test endpoints (search/settings.ts `searchEndpoints`).
 */
export function localAllowList(storage: PluginStorage, configuredOrigins: () => Promise<Set<string>>): (url: URL) => Promise<boolean> {
  const tests = storage.secret(TEST_LOCAL_ORIGINS_NAME);
  return async (url) => {
    if ((await configuredOrigins().catch(() => new Set<string>())).has(url.origin)) return true;
    return (await testLocalOrigins(() => tests.getValue())).includes(url.origin);
  };
}

/** The loopback origins the tests allowed (see `localAllowList`); garbage and non-loopback origins are dropped. */
export async function testLocalOrigins(read: () => Promise<string | undefined>): Promise<string[]> {
  let raw: string | undefined;
  try {
    raw = await read();
  } catch {
    return [];
  }
  if (!raw) return [];
  let list: unknown;
  try {
    list = JSON.parse(raw);
  } catch {
    return [];
  }
  if (!Array.isArray(list)) return [];
  return list.filter((o): o is string => typeof o === 'string' && originOf(o) === o && new URL(o).protocol === 'http:' && localNetworkKind(o) === 'loopback');
}
