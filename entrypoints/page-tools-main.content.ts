import { captureIntrinsics, installMainWorldBridge } from '@/plugins/page-tools/main-world';

/**
 * The page's MAIN world, before its own scripts: discovers `devtoolstooldiscovery` tools and
 * declarative WebMCP forms, provides WebMCP's `modelContext` where the browser has none, and runs
 * tools for the agent. In every frame of http(s) pages: a same-origin child frame's tools reach the
 * agent through the top frame's bridge (only the top frame has a relay). No extension API is
 * reachable from here.
 */
export default defineContentScript({
  matches: ['http://*/*', 'https://*/*'],
  world: 'MAIN',
  allFrames: true,
  runAt: 'document_start',
  main() {
    // First of all, the page's built-ins as they are now: the bridge calls no others.
    const intrinsics = captureIntrinsics(window);
    const mark = Symbol.for('sidequest.page-tools');
    const win = window as unknown as Record<symbol, boolean>;
    if (win[mark]) return;
    intrinsics.defineProperty(window, mark, { __proto__: null, value: true } as PropertyDescriptor);
    installMainWorldBridge(window, {}, intrinsics);
  },
});
