import vue from '@vitejs/plugin-vue';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { WxtVitest } from 'wxt/testing';
import { linearSchemaPatterns } from './build/linear-schema-patterns.ts';
import { readabilityFast } from './build/readability-fast.ts';

export default defineConfig({
  plugins: [WxtVitest(), vue(), readabilityFast(), linearSchemaPatterns()],
  // Node's require loads packages past Vite's plugins: the tests get Readability patched as the
  // build patches it from a helper instead.
  // pdf.js's modern build needs a browser's DOMMatrix as it loads; Node runs its legacy build (the
  // same reader, with polyfills), in its in-thread worker.
  resolve: {
    alias: [
      { find: /^@mozilla\/readability$/, replacement: fileURLToPath(new URL('./tests/unit/helpers/readability.ts', import.meta.url)) },
      { find: /^pdfjs-dist$/, replacement: 'pdfjs-dist/legacy/build/pdf.mjs' },
    ],
  },
  test: {
    globals: true,
    include: ['tests/unit/**/*.test.ts', 'plugins/**/*.test.ts'],
    setupFiles: ['tests/unit/setup.ts'],
    testTimeout: 20_000,
    // Vitest runs one file at a time on a machine with two cores (its default is cores - 1); two
    // at a time there keeps both busy (each file is mostly start-up: its own process, imports).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // Through Vite, so the validator runs schema patterns on the linear-time engine as the build
    // makes it (build/linear-schema-patterns.ts); Node would load the package unpatched.
    server: { deps: { inline: ['@cfworker/json-schema'] } },
  },
});
