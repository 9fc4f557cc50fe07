import vue from '@vitejs/plugin-vue';
import { defineConfig } from 'vitest/config';
import { WxtVitest } from 'wxt/testing';
import { readabilityFast } from './build/readability-fast.ts';
import { toolValidators } from './build/tool-validators.ts';

export default defineConfig({
  plugins: [WxtVitest(), vue(), toolValidators(), readabilityFast()],
  test: {
    globals: true,
    include: ['tests/unit/**/*.test.ts'],
    setupFiles: ['tests/unit/setup.ts'],
    testTimeout: 20_000,
  },
});
