// An MCP server whose address came from a settings file (`imported`): its address is not one the
// user configured until they confirm it (or save its credentials), and nothing connects to it on
// its own at start-up.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { interpretedValidators } from '@/core/registry/interpreted-validator';
import { ToolRegistry } from '@/core/registry/registry';
import { startMcpServer } from '../../tests/mcp-server/server.mjs';
import { McpService } from './service';
import type { McpServerConfig } from './types';

type TestServer = Awaited<ReturnType<typeof startMcpServer>>;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function makeService(initial: McpServerConfig[]) {
  let saved = structuredClone(initial);
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
  return { service, registry, saved: () => saved };
}

describe('an MCP server imported from a settings file', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startMcpServer();
  });
  afterAll(async () => {
    await server.close();
  });

  const config = (extra: Partial<McpServerConfig>): McpServerConfig => ({
    id: 's1',
    url: server.url,
    name: 'Local',
    slug: 'local',
    addedAt: 1,
    tools: [{ name: 'get_weather', inputSchema: { type: 'object', properties: { city: { type: 'string' } } } }],
    ...extra,
  });

  it('is not configured, and is not connected to at start-up, until the user confirms its address', async () => {
    const { service, registry } = makeService([config({ imported: true, tools: [] })]);
    await service.start();
    await sleep(300);
    expect(server.sessions).toBe(0);
    expect(service.views()[0]).toMatchObject({ status: 'idle', imported: true });
    await service.dispose();

    // With its tools cached, they are offered; their target is not the user's configured address.
    const cached = makeService([config({ imported: true })]);
    await cached.service.start();
    const target = () => cached.registry.describe('mcp_local_get_weather')!.annotations.target?.({}, {});
    expect(target()).toEqual({ url: server.url, configured: false });
    await cached.service.confirm('s1');
    expect(target()).toEqual({ url: server.url, configured: true });
    expect(cached.saved()[0]!.imported).toBeUndefined();
    expect(cached.service.views()[0]!.imported).toBeUndefined();
    await cached.service.dispose();
    expect(registry.listTools()).toEqual([]);
  });

  it('saving its credentials in the form confirms it too; a reload reads what an import wrote', async () => {
    const { service, registry, saved } = makeService([config({ imported: true })]);
    await service.start();
    await service.setCredentials('s1', {});
    expect(saved()[0]!.imported).toBeUndefined();
    expect(registry.describe('mcp_local_get_weather')!.annotations.target?.({}, {})).toEqual({ url: server.url, configured: true });
    // An import replaced the stored list meanwhile.
    saved().splice(0, 1, config({ id: 's2', slug: 'other', imported: true }));
    await service.reload();
    expect(service.views().map((v) => [v.id, v.imported])).toEqual([['s2', true]]);
    expect(registry.describe('mcp_other_get_weather')!.annotations.target?.({}, {})).toEqual({ url: server.url, configured: false });
    expect(registry.describe('mcp_local_get_weather')).toBeUndefined();
    await service.dispose();
  });
});
