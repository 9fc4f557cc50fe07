import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ApprovalGate, type Permission } from '@/core/approvals/gate';
import { interpretedValidators } from '@/core/registry/interpreted-validator';
import { ToolRegistry } from '@/core/registry/registry';
import { unwrapUntrusted } from '@/core/registry/untrusted';
import { CHART_PNG, startMcpServer } from '../../tests/mcp-server/server.mjs';
import { mcpInputSchema } from './schema';
import { McpService } from './service';
import { checkUrl, McpSettingsError, parseHeaders } from './server-input';
import type { McpServerConfig } from './types';

type TestServer = Awaited<ReturnType<typeof startMcpServer>>;

/** A service over a real registry, with its storage in memory. */
function makeService(registry = new ToolRegistry(interpretedValidators)) {
  let saved: McpServerConfig[] = [];
  const secrets = new Map<string, Record<string, string>>();
  const service = new McpService({
    registry,
    parentId: 'mcp',
    stores: {
      load: async () => structuredClone(saved),
      save: async (list) => void (saved = structuredClone(list)),
      getCredentials: async (id) => secrets.get(id),
      setCredentials: async (id, headers) => void (headers ? secrets.set(id, headers) : secrets.delete(id)),
    },
  });
  return { service, registry, saved: () => saved, secrets };
}

const signal = () => new AbortController().signal;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('MCP input schemas', () => {
  it('are validated by the registry (interpreted, no eval) in one wording', () => {
    // As the SDK's server sends a zod shape: draft 2020-12, no extra properties.
    const schema = mcpInputSchema({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 1, maximum: 7 } },
      required: ['city', 'days'],
      additionalProperties: false,
    })!;
    expect(schema.$schema).toBeUndefined();
    const registry = new ToolRegistry(interpretedValidators);
    registry.register({ id: 'mcp:x', source: 'remote', name: 'x', description: '', tools: [{ name: 'mcp_x_f', description: '', inputSchema: schema, execute: () => 'ok' }] });
    expect(registry.refusal('mcp_x_f', { city: 'Oslo', days: 'three' })).toMatchObject({ code: 'invalid_input', error: 'Invalid parameters for tool mcp_x_f: days must be integer (got string)' });
    expect(registry.refusal('mcp_x_f', { city: 'Oslo', days: 9 })?.ok).toBe(false);
    expect(registry.refusal('mcp_x_f', { city: 'Oslo', days: 2, units: 'C' })).toMatchObject({ error: 'Invalid parameters for tool mcp_x_f: units is not a parameter of this tool' });
    expect(registry.refusal('mcp_x_f', { days: 2 })).toMatchObject({ error: 'Invalid parameters for tool mcp_x_f: city is required' });
    expect(registry.refusal('mcp_x_f', { city: 'Oslo', days: 2 })).toBeUndefined();
  });

  it('are always objects; too big or too deep ones are refused', () => {
    expect(mcpInputSchema(undefined)).toEqual({ type: 'object', properties: {} });
    expect(mcpInputSchema({ type: 'string' })).toEqual({ type: 'object', properties: {} });
    expect(mcpInputSchema({ type: 'object', properties: { a: { type: 'string', description: 'x'.repeat(40_000) } } })).toBeNull();
    let deep: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 30; i++) deep = { type: 'object', properties: { a: deep } };
    expect(mcpInputSchema(deep)).toBeNull();
  });
});

describe('MCP settings input', () => {
  it('URLs are http(s) without credentials; headers are Name: value lines', () => {
    expect(checkUrl(' https://mcp.example.com/mcp#x ')).toBe('https://mcp.example.com/mcp');
    expect(() => checkUrl('')).toThrow(McpSettingsError);
    expect(() => checkUrl('ftp://x/')).toThrow(/must start with https/);
    expect(() => checkUrl('https://u:p@x/')).toThrow(/not in the URL/);
    expect(parseHeaders('X-Api-Key: abc\n\nX-Team:  blue ')).toEqual({ 'X-Api-Key': 'abc', 'X-Team': 'blue' });
    expect(() => parseHeaders('no colon')).toThrow(/line 1/);
    expect(() => parseHeaders('Bad Name: x')).toThrow(/line 1/);
  });

  it('credentials are never sent over plain http to another computer', async () => {
    const { service } = makeService();
    await expect(service.add({ url: 'http://mcp.example.com/mcp', bearerToken: 't' })).rejects.toThrow(/never sent over plain http/);
  });
});

describe('MCP servers as plugins (a real SDK server on 127.0.0.1)', () => {
  let weather: TestServer;
  let legacy: TestServer;
  let vault: TestServer;
  const services: McpService[] = [];

  beforeAll(async () => {
    weather = await startMcpServer();
    legacy = await startMcpServer({ legacy: true });
    vault = await startMcpServer({ token: 'right' });
  });
  afterAll(async () => {
    for (const s of [weather, legacy, vault]) await s.close();
  });
  afterEach(async () => {
    for (const s of services.splice(0)) await s.dispose();
  });
  const tracked = (made: ReturnType<typeof makeService>) => (services.push(made.service), made);

  it('adding a server registers its tools, namespaced, switchable, under the mcp plugin', async () => {
    const { service, registry } = tracked(makeService());
    const [view] = await service.add({ url: weather.url, name: 'Weather' });
    expect(view).toMatchObject({ label: 'Weather', status: 'connected', transport: 'streamable-http', enabled: true });
    const names = registry.listTools().map((t) => t.name);
    expect(names).toEqual(['mcp_weather_get_weather', 'mcp_weather_get_forecast', 'mcp_weather_fail_always', 'mcp_weather_slow_count', 'mcp_weather_unlock_secret', 'mcp_weather_get_chart']);
    const spec = registry.describe('mcp_weather_get_weather')!;
    expect(spec).toMatchObject({ source: 'remote', annotations: { readOnly: false, destructive: true, openWorld: true, claims: { readOnlyHint: true, openWorldHint: true } } });
    expect(spec.annotations.target?.({}, {})).toEqual({ url: weather.url, configured: true });
    // Its own switch, and the parent's.
    await registry.setEnabled(`mcp:${view!.id}`, false);
    expect(registry.listTools()).toEqual([]);
    await registry.setEnabled(`mcp:${view!.id}`, true);
    await registry.setEnabled('mcp', false);
    expect(registry.listTools()).toEqual([]);
    await registry.setEnabled('mcp', true);
    expect(registry.listTools()).toHaveLength(6);
    // Removed: its tools are gone and its session is ended on the server.
    const open = weather.sessions;
    await service.remove(view!.id);
    expect(registry.listTools()).toEqual([]);
    expect(weather.sessions).toBe(open - 1);
  });

  it('results: text and structured content in the envelope; an error result is an error', async () => {
    const { service, registry } = tracked(makeService());
    await service.add({ url: weather.url, name: 'Weather' });
    const text = await registry.invoke('mcp_weather_get_weather', { city: 'Oslo' });
    expect(text.ok).toBe(true);
    expect(unwrapUntrusted((text as { output: string }).output)?.content).toBe('Weather in Oslo: 21 °C, light breeze from the north-west.');
    const structured = await registry.invoke('mcp_weather_get_forecast', { city: 'Oslo', days: 1 });
    expect(JSON.parse(unwrapUntrusted((structured as { output: string }).output)!.content)).toEqual({ structured_content: { city: 'Oslo', days: [{ day: 1, high: 18, sky: 'sunny' }] } });
    const chart = await registry.invoke('mcp_weather_get_chart', { city: 'Oslo' });
    expect(chart).toMatchObject({ ok: true, attachments: [{ type: 'image', mediaType: 'image/png', data: CHART_PNG }] });
    expect(JSON.parse(unwrapUntrusted((chart as { output: string }).output)!.content)).toMatchObject({
      text: 'Temperature chart of Oslo.',
      resource_links: [{ uri: 'https://charts.example/Oslo.png', name: 'Oslo.png', mime_type: 'image/png' }],
      media: [{ type: 'image', mime_type: 'image/png' }],
    });
    const failed = await registry.invoke('mcp_weather_fail_always', {});
    expect(failed).toMatchObject({ ok: false, code: 'failed' });
    expect((failed as { error: string }).error).toMatch(/reports that its tool "fail_always" failed.*Inventory backend unreachable/s);
  });

  it('falls back to HTTP+SSE for a server that only speaks it', async () => {
    const { service, registry } = tracked(makeService());
    const [view] = await service.add({ url: legacy.url, name: 'Legacy' });
    expect(view).toMatchObject({ status: 'connected', transport: 'sse' });
    const out = await registry.invoke('mcp_legacy_get_weather', { city: 'Paris' });
    expect(unwrapUntrusted((out as { output: string }).output)?.content).toMatch(/Weather in Paris/);
  });

  it('a bearer token is sent and kept as a secret; a wrong one is worded', async () => {
    const { service, registry, secrets, saved } = tracked(makeService());
    const [wrong] = await service.add({ url: vault.url, name: 'Vault', bearerToken: 'nope' });
    expect(wrong).toMatchObject({ status: 'error', hasCredentials: true });
    expect(wrong!.lastError).toMatch(/refused the credentials \(HTTP 401\): the bearer token or headers are missing or wrong/);
    // Changed in place: connected, the token replaced.
    const [fixed] = await service.setCredentials(wrong!.id, { bearerToken: 'right' });
    expect(fixed).toMatchObject({ status: 'connected', hasCredentials: true });
    expect(fixed!.lastError).toBeUndefined();
    expect(secrets.get(wrong!.id)).toEqual({ Authorization: 'Bearer right' });
    await service.remove(wrong!.id);
    expect(secrets.size).toBe(0);
    const [right] = await service.add({ url: vault.url, name: 'Vault', bearerToken: 'right' });
    expect(right).toMatchObject({ status: 'connected' });
    expect(JSON.stringify(saved())).not.toContain('right"');
    expect(secrets.get(right!.id)).toEqual({ Authorization: 'Bearer right' });
    expect((await registry.invoke('mcp_vault_get_weather', { city: 'Rome' })).ok).toBe(true);
  });

  it('tools/list_changed refreshes the plugin', async () => {
    const server = await startMcpServer();
    try {
      const { service, registry } = tracked(makeService());
      await service.add({ url: server.url, name: 'Box' });
      expect(registry.describe('mcp_box_read_secret')).toBeUndefined();
      await registry.invoke('mcp_box_unlock_secret', {});
      for (let i = 0; i < 50 && !registry.describe('mcp_box_read_secret'); i++) await sleep(50);
      const out = await registry.invoke('mcp_box_read_secret', {});
      expect(unwrapUntrusted((out as { output: string }).output)?.content).toBe('The secret word is TANGERINE-42.');
    } finally {
      await server.close();
    }
  });

  it('stopping a call sends notifications/cancelled; a server gone mid-call is a clear error at once', async () => {
    const server = await startMcpServer();
    const { service, registry } = tracked(makeService());
    await service.add({ url: server.url, name: 'Box' });
    const stop = new AbortController();
    const stopped = registry.invoke('mcp_box_slow_count', { seconds: 10 }, { signal: stop.signal });
    await sleep(300);
    stop.abort();
    expect(await stopped).toMatchObject({ ok: false, code: 'aborted' });
    for (let i = 0; i < 40 && !server.state.cancelled.length; i++) await sleep(100);
    expect(server.state.cancelled).toEqual(['slow_count']);

    const started = Date.now();
    const gone = registry.invoke('mcp_box_slow_count', { seconds: 20 }, { signal: signal() });
    await sleep(300);
    await server.close();
    const result = await gone;
    expect(result).toMatchObject({ ok: false, code: 'failed' });
    expect((result as { error: string }).error).toMatch(/The MCP server "Box" \(http:\/\/127\.0\.0\.1:\d+\/mcp\) went away while running "slow_count"/);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(service.views()[0]).toMatchObject({ status: 'error' });
    // The next call tries to connect again, and says why it cannot.
    const again = await registry.invoke('mcp_box_get_weather', { city: 'Oslo' });
    expect((again as { error: string }).error).toMatch(/The MCP server "Box" cannot be used now\. What was said: <<<UNTRUSTED BEGIN [0-9a-f]{16} [^\n]*>>>\nThe server at .* cannot be reached[^]*\n<<<UNTRUSTED END [0-9a-f]{16}>>>$/);
  });

  it('after a restart the last tools are offered at once and connect on the first call', async () => {
    const first = tracked(makeService());
    await first.service.add({ url: weather.url, name: 'Weather' });
    const stored = first.saved();
    await first.service.dispose();
    // A new background: a new registry and service over the same storage.
    const registry = new ToolRegistry(interpretedValidators);
    const again = new McpService({
      registry,
      parentId: 'mcp',
      stores: { load: async () => structuredClone(stored), save: async () => undefined, getCredentials: async () => undefined, setCredentials: async () => undefined },
    });
    services.push(again);
    await again.start();
    expect(again.views()[0]).toMatchObject({ status: 'idle' });
    expect(registry.listTools()).toHaveLength(6);
    const out = await registry.invoke('mcp_weather_get_weather', { city: 'Oslo' });
    expect(out.ok).toBe(true);
    expect(again.views()[0]).toMatchObject({ status: 'connected' });
  });
});

describe('the approval gate and a configured server', () => {
  const permissions = { load: async () => [] as Permission[], put: async () => undefined, remove: async () => undefined };
  const gate = () => new ApprovalGate({ permissions, activeTab: async () => undefined, tab: async () => undefined });
  const spec = (configured: boolean, claims?: { readOnlyHint?: boolean }) => ({
    name: 'mcp_local_x',
    description: '',
    inputSchema: {},
    pluginId: 'mcp:1',
    source: 'remote' as const,
    annotations: { readOnly: false, destructive: true, openWorld: true, target: () => ({ url: 'http://127.0.0.1:9/mcp', configured }), claims },
  });

  it('the user\'s own server on 127.0.0.1 does not ask as "your own network"; it still asks as an acting tool', async () => {
    const g = gate();
    const reasons: string[] = [];
    g.onChange((c) => {
      if (c.type === 'asked') {
        reasons.push(c.approval.reason);
        g.answer(c.approval.id, 'once');
      }
    });
    await g.check({ name: 'mcp_local_x', input: {}, spec: spec(true), conversationId: 'c' });
    await g.check({ name: 'mcp_local_x', input: {}, spec: spec(true, { readOnlyHint: true }), conversationId: 'c' });
    await g.check({ name: 'mcp_local_x', input: {}, spec: spec(false), conversationId: 'c' });
    expect(reasons).toEqual(['destructive', 'claimed', 'local']);
  });
});
