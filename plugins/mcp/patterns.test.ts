// An MCP server's schemas are its own words: a `pattern` built to backtrack, in a tool's input
// schema (checked by the registry before the approval gate) or its output schema (checked by the
// SDK's client on the result), runs on the linear-time engine, through the real SDK against the
// test server. A pattern that engine cannot take keeps the tool out, said in the settings.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { interpretedValidators } from '@/core/registry/interpreted-validator';
import { ToolRegistry } from '@/core/registry/registry';
import { startMcpServer } from '../../tests/mcp-server/server.mjs';
import { McpService } from './service';
import type { McpServerConfig } from './types';
import { mcpSchemaValidator } from './validator';

/**
 * Forty `a`s and a `!` keep a backtracking RegExp busy for hours on `^(a+)+$`; 25 take it about
 * six seconds on the CI machine, so a broken fix shows red in seconds instead of hanging the run.
 */
const HOSTILE = 25;
/** What a check may take on the linear-time engine here (it takes a few milliseconds). */
const FAST_MS = 1000;

function makeService() {
  let saved: McpServerConfig[] = [];
  const registry = new ToolRegistry(interpretedValidators);
  const service = new McpService({
    registry,
    parentId: 'mcp',
    stores: {
      load: async () => structuredClone(saved),
      save: async (list) => void (saved = structuredClone(list)),
      getCredentials: async () => undefined,
      setCredentials: async () => undefined,
    },
  });
  return { service, registry };
}

async function timed<T>(run: () => Promise<T> | T): Promise<{ value: T; ms: number }> {
  const start = performance.now();
  const value = await run();
  return { value, ms: performance.now() - start };
}

describe('MCP schemas with backtracking patterns (a real SDK server on 127.0.0.1)', () => {
  let server: Awaited<ReturnType<typeof startMcpServer>>;
  const services: McpService[] = [];

  beforeAll(async () => {
    server = await startMcpServer({ hostile: true, name: 'hostile' });
  });
  afterAll(async () => {
    await server.close();
  });
  afterEach(async () => {
    for (const s of services.splice(0)) await s.dispose();
  });

  it('an input pattern runs on the linear-time engine before anything is sent; one it cannot take keeps the tool out', async () => {
    const { service, registry } = makeService();
    services.push(service);
    const [view] = await service.add({ url: server.url, name: 'Codes' });
    const names = registry.listTools().map((t) => t.name);
    expect(names).toContain('mcp_codes_check_code');
    expect(names).toContain('mcp_codes_echo_code');
    // Lookahead has no linear-time match: not offered, and the settings say why.
    expect(names).not.toContain('mcp_codes_lookahead_code');
    expect(service.views()[0]?.lastErrorSaid).toEqual({ key: 'mcp.errors.notOfferedPattern', params: { tools: '"lookahead_code"' } });
    expect(view?.status).toBe('connected');

    const before = server.state.calls.length;
    for (const n of [HOSTILE, 40]) {
      const { value, ms } = await timed(() => registry.invoke('mcp_codes_check_code', { code: `${'a'.repeat(n)}!` }));
      console.log(`[redos] MCP input pattern ^(a+)+$ on ${n} a's and "!": refused in ${ms.toFixed(1)} ms`);
      expect(value).toMatchObject({ ok: false, code: 'invalid_input', error: 'Invalid parameters for tool mcp_codes_check_code: code: String does not match pattern' });
      expect(ms).toBeLessThan(FAST_MS);
    }
    expect(server.state.calls.length).toBe(before);
    // A code that fits goes through.
    expect(await registry.invoke('mcp_codes_check_code', { code: 'aaaa' })).toMatchObject({ ok: true });
    expect(server.state.calls.at(-1)).toEqual({ tool: 'check_code', code: 'aaaa' });
  });

  it('the output schema\'s pattern and patternProperties run on the linear-time engine in the SDK client', async () => {
    const { service, registry } = makeService();
    services.push(service);
    await service.add({ url: server.url, name: 'Codes' });
    const { value, ms } = await timed(() => registry.invoke('mcp_codes_echo_code', { length: HOSTILE }));
    console.log(`[redos] MCP output schema (pattern ^(a+)+$, patternProperties ^(b+)+$) on ${HOSTILE} letters and "!": answered in ${ms.toFixed(1)} ms`);
    expect(ms).toBeLessThan(FAST_MS);
    expect(value.ok).toBe(false);
    expect((value as { error: string }).error).toMatch(/Structured content does not match the tool's output schema: code: String does not match pattern/);
  });

  it('the SDK client gets the interpreted validator, with the linear-time engine and its budget', () => {
    const validate = mcpSchemaValidator.getValidator({ type: 'object', properties: { code: { type: 'string', pattern: '^(a+)+$' } }, patternProperties: { '^(b+)+$': { type: 'string' } } });
    const start = performance.now();
    expect(validate({ code: `${'a'.repeat(HOSTILE)}!`, [`${'b'.repeat(HOSTILE)}!`]: 1 })).toMatchObject({ valid: false, errorMessage: 'code: String does not match pattern' });
    expect(validate({ code: 'aaa', bbb: 'x' })).toEqual({ valid: true, data: { code: 'aaa', bbb: 'x' }, errorMessage: undefined });
    expect(validate({ code: 'aaa', bbb: 1 })).toMatchObject({ valid: false, errorMessage: 'bbb must be string (got number)' });
    expect(performance.now() - start).toBeLessThan(FAST_MS);
    // A schema it cannot check is a failed validation, worded.
    expect(mcpSchemaValidator.getValidator({ type: 'string', pattern: '(a)\\1' })('aa')).toMatchObject({ valid: false, errorMessage: expect.stringMatching(/cannot be checked: it uses a backreference/) });
  });
});
