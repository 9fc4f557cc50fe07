import js from '@eslint/js';
import pluginVue from 'eslint-plugin-vue';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['.output/**', '.wxt/**', 'node_modules/**', 'tests/artifacts/**', 'bench/results/**', 'public/**', 'tests/fixtures/todomvc/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  ...pluginVue.configs['flat/recommended'],
  {
    files: ['**/*.vue'],
    languageOptions: { parserOptions: { parser: tseslint.parser } },
  },
  {
    languageOptions: {
      ecmaVersion: 'latest',
      sourceType: 'module',
      globals: { ...globals.browser, ...globals.webextensions, defineBackground: 'readonly', defineContentScript: 'readonly', defineUnlistedScript: 'readonly' },
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'vue/max-attributes-per-line': 'off',
      'vue/singleline-html-element-content-newline': 'off',
      'vue/multiline-html-element-content-newline': 'off',
      'vue/html-self-closing': 'off',
      'vue/html-indent': 'off',
      'vue/html-closing-bracket-newline': 'off',
      'vue/attributes-order': 'off',
      'vue/first-attribute-linebreak': 'off',
    },
  },
  {
    // What the background needs only sometimes (a provider type's package, the MCP SDK) is imported
    // where it is first used, with `await import()`: Rolldown keeps it inside background.js but
    // evaluates it then, not at every start of the service worker (ARCHITECTURE.md). Types as usual.
    files: ['core/**/*.ts', 'plugins/**/*.ts', 'entrypoints/**/*.ts'],
    ignores: ['**/*.test.ts', 'plugins/mcp/connection.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@ai-sdk/google', '@ai-sdk/anthropic', '@ai-sdk/openai-compatible', 'ollama-ai-provider-v2', '@modelcontextprotocol/sdk/*', '**/mcp/connection', './connection'],
              allowTypeImports: true,
              message: 'Loaded when first used: `await import(…)` (the background evaluates it then, not at every start).',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['tests/**/*.mjs', 'bench/**/*.mjs', 'scripts/**/*.mjs', 'examples/**/*.mjs', '**/*.config.*', 'build/**'],
    languageOptions: { globals: { ...globals.node } },
  },
);
