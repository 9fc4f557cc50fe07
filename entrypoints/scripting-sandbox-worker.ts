import { installSandboxWorker } from '@/plugins/scripting/sandbox-worker';

/**
 * The scripting plugin's sandbox, as a dedicated worker (plugins/scripting/offscreen.ts starts it
 * from Firefox's background page or Chrome's offscreen document): QuickJS busy with the agent's
 * code never holds up the background. Never listed in the manifest.
 */
export default defineUnlistedScript(() => {
  installSandboxWorker(self as unknown as Parameters<typeof installSandboxWorker>[0]);
});
