import { installPageRunner } from '@/plugins/scripting/page-runner';

/**
 * Injected into a page's main world by the scripting plugin's page target before each call; it
 * installs the runner the call then invokes. Never listed in the manifest.
 */
export default defineUnlistedScript(() => {
  installPageRunner(window);
});
