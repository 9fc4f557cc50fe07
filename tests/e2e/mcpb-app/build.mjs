// Builds the two MCP-B fixture pages' scripts with esbuild from the real npm packages
// (@mcp-b/global, @mcp-b/react-webmcp, react, react-dom: devDependencies pinned in package.json).
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

/** Bundles one entry (`global.mjs` or `react.jsx`) into an IIFE and returns its JavaScript. */
export async function buildMcpbScript(entry) {
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    entryPoints: [path.join(here, entry)],
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    jsx: 'automatic',
    define: { 'process.env.NODE_ENV': '"production"' },
    write: false,
    minify: false,
    sourcemap: false,
    logLevel: 'silent',
  });
  return result.outputFiles[0].text;
}
