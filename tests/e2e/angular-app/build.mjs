// Builds the Angular test app (main.mjs) into one script with esbuild, in development mode.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

/** Bundles the app and returns its JavaScript (a few MB: Angular's compiler is in it, for JIT). */
export async function buildAngularApp() {
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    entryPoints: [path.join(here, 'main.mjs')],
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    write: false,
    minify: false,
    sourcemap: false,
    logLevel: 'silent',
  });
  return result.outputFiles[0].text;
}
