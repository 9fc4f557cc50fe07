import { installPageRunner } from '@/plugins/scripting/page-runner';

/**
 * Injected into a page's main world by `execute_script` (target "page") before each call; it
 * installs the runner the call then invokes. Never listed in the manifest.
 */
export default defineUnlistedScript(() => {
  installPageRunner(window);
});
