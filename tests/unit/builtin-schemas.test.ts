import { describe, expect, it } from 'vitest';
import { validators } from 'virtual:tool-validators';
import { compileValidators } from '../../build/tool-validators';
import { builtinSchemas } from '@/plugins/schemas';
import { builtinPlugins } from '@/plugins';
import type { PluginServices } from '@/core/background/service';

describe('built-in tool schemas', () => {
  it('every built-in tool uses the schema that was compiled for it', () => {
    const plugins = builtinPlugins({} as PluginServices);
    const tools = plugins.flatMap((p) => p.tools);
    expect(tools.length).toBeGreaterThan(0);
    for (const tool of tools) {
      expect(builtinSchemas[tool.name], `schema of ${tool.name}`).toBe(tool.inputSchema);
      expect(typeof validators[tool.name], `validator of ${tool.name}`).toBe('function');
    }
  });

  it('compiled validators accept good input and explain bad input', () => {
    const validate = validators.open_tab!;
    expect(validate({ url: 'https://example.com', active: false })).toBe(true);
    expect(validate({ url: 'https://example.com', tab_id: 1.5 })).toBe(false);
    expect(validate.errors?.[0]).toMatchObject({ instancePath: '/tab_id', keyword: 'type' });
    expect(validate({})).toBe(false);
    expect(validate({ url: '' })).toBe(false);
  });

  it('the generated module has no eval and no require', () => {
    const code = compileValidators(builtinSchemas);
    expect(code).not.toMatch(/\bnew Function\b|\beval\(/);
    expect(code).not.toMatch(/\brequire\(/);
    expect(code).toMatch(/export const validators = \{/);
  });
});
