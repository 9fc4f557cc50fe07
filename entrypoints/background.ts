// English first: the background renders `Said` words in English only (the model, traces, exports).
import '@/core/i18n/english';
import { config as zodConfig } from 'zod';
import { registerCommands } from '@/core/background/commands';
import { startBackground } from '@/core/background/service';
import { builtinPlugins } from '@/plugins';

export default defineBackground({
  // Firefox MV2: a persistent background page, so a run is never suspended mid-way.
  persistent: true,
  main() {
    // Zod probes `new Function` to decide whether to JIT; the extension CSP forbids it.
    zodConfig({ jitless: true });
    registerCommands();
    startBackground({ plugins: builtinPlugins, bench: import.meta.env.MODE === 'bench' });
  },
});
