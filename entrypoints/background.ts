// English first: the background renders `Said` words in English only (the model, traces, exports).
import '@/core/i18n/english';
import { config as zodConfig } from 'zod';
import { registerCommands } from '@/core/background/commands';
import { startBackground } from '@/core/background/service';
import { pdfJobs } from '@/core/extract/pdf-jobs';
import { runOffscreenJobsHere } from '@/core/offscreen/host';
import { builtinPlugins } from '@/plugins';
import { builtinOffscreenJobs } from '@/plugins/offscreen';

export default defineBackground({
  // Firefox MV2: a persistent background page, so a run is never suspended mid-way.
  persistent: true,
  main() {
    // Zod probes `new Function` to decide whether to JIT; the extension CSP forbids it.
    zodConfig({ jitless: true });
    // Firefox's background is a page (a DOM, workers, blob URLs): it runs the plugins' offscreen
    // jobs itself. Chrome's service worker has none of them and sends the jobs to its offscreen
    // document, so this is decided at build time and Chrome's bundle holds none of their code.
    if (import.meta.env.FIREFOX) runOffscreenJobsHere([pdfJobs, ...builtinOffscreenJobs]);
    registerCommands();
    startBackground({ plugins: builtinPlugins, bench: import.meta.env.MODE === 'bench' });
  },
});
