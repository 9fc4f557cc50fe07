import { originOf } from '@/core/net/origin';
import type { PluginStorage } from '@/core/storage/plugin-data';
import { localNetworkKind } from '@/core/net/local-network';

/** Where the test-only allow-list is kept: a secret of the web plugin (`web.test.localOrigins` in IndexedDB). */
export const TEST_LOCAL_ORIGINS_NAME = 'test.localOrigins';


/**
 * Which local-network addresses `web_fetch` may request:
 * - the origins the user set up in settings (`ctx.configuredOrigins`: the model providers', Ollama
 *   on localhost by default);
 * - origins listed by the end-to-end tests, which serve their pages on 127.0.0.1 (by that address,
 *   or by test names under `.example` that the browsers are told resolve there). Tests write a
 *   JSON array of origins (`["http://127.0.0.1:41234", "http://evil.example:41235"]`) under
 *   `web.test.localOrigins` in the `secrets` table from an extension page (tests/e2e/helpers.mjs
 *   `allowLocalOrigins`). No message, setting or UI reads or writes it; web pages and content
 *   scripts cannot reach the extension's IndexedDB; only plain-http loopback origins and names
 *   under `.example` (reserved, RFC 2606: no real site has one) are taken, anything else is
 *   ignored. The same mechanism as the search engines' test endpoints (search/settings.ts
 *   `searchEndpoints`).
 */
export function localAllowList(storage: PluginStorage, configuredOrigins: () => Promise<Set<string>>): (url: URL) => Promise<boolean> {
  const tests = storage.secret(TEST_LOCAL_ORIGINS_NAME);
  return async (url) => {
    if ((await configuredOrigins().catch(() => new Set<string>())).has(url.origin)) return true;
    return (await testLocalOrigins(() => tests.getValue())).includes(url.origin);
  };
}

/**
 * The origins the tests allowed (see `localAllowList`): http origins on a loopback address, or on
 * a name under `.example` (the e2e test sites, `TEST_HOSTS` in tests/e2e/harness.mjs). Garbage and
 * anything else are dropped.
 */
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
  return list.filter((o): o is string => typeof o === 'string' && originOf(o) === o && new URL(o).protocol === 'http:' && (localNetworkKind(o) === 'loopback' || isTestName(new URL(o).hostname)));
}

/** A name under the reserved `.example` domain (`evil.example`, `a.b.example`), not `example` itself. */
function isTestName(hostname: string): boolean {
  return /^([a-z0-9-]+\.)+example$/.test(hostname);
}
