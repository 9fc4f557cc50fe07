// The MCP client and the user's network: every request it makes (OAuth discovery, registration,
// tokens, redirects) passes the local-network rule, and a run does no discovery. Real SDK client,
// real test MCP server with OAuth (tests/mcp-server/server.mjs), and a "trap" server standing for
// a device on the user's network that must receive nothing.
import http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import type { AddressProbe } from '@/core/net/address';
import { interpretedValidators } from '@/core/registry/interpreted-validator';
import { ToolRegistry } from '@/core/registry/registry';
import { startMcpServer } from '../../tests/mcp-server/server.mjs';
import { guardedFetch, McpReachError } from './guard';
import type { OAuthState } from './oauth';
import { McpService } from './service';
import { McpSettingsError } from './server-input';
import type { McpServerConfig } from './types';

const REDIRECT = 'https://sidequest-test.chromiumapp.org/';

/** A server that records every request and answers 404 (or what `answer` says). */
async function startTrap(answer?: (req: http.IncomingMessage, res: http.ServerResponse) => boolean) {
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    if (answer?.(req, res)) return;
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    requests,
    port,
    // By `localhost`: another origin than the MCP server's 127.0.0.1, and local by its name.
    origin: `http://localhost:${port}`,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

function makeService(options: { fetch?: typeof fetch; probe?: AddressProbe } = {}) {
  let saved: McpServerConfig[] = [];
  const secrets = new Map<string, string>();
  const opened: string[] = [];
  const registry = new ToolRegistry(interpretedValidators);
  const service = new McpService({
    registry,
    parentId: 'mcp',
    fetch: options.fetch,
    probe: options.probe,
    stores: {
      load: async () => structuredClone(saved),
      save: async (list) => void (saved = structuredClone(list)),
      getCredentials: async () => undefined,
      setCredentials: async () => undefined,
      oauth: (id) => ({
        load: async () => (secrets.has(id) ? (JSON.parse(secrets.get(id)!) as OAuthState) : undefined),
        save: async (state) => void (state ? secrets.set(id, JSON.stringify(state)) : secrets.delete(id)),
      }),
    },
    oauth: {
      redirectUrl: REDIRECT,
      async signIn(url) {
        opened.push(url.href);
        const answer = await fetch(url, { redirect: 'manual' });
        return answer.headers.get('location')!;
      },
    },
  });
  return { service, registry, saved: () => saved, secrets, opened };
}

/** Drops the live connection, as a browser restart would: the next call connects again, from a run. */
async function dropConnection(service: McpService, id: string): Promise<void> {
  await (service as unknown as { entries: Map<string, { connection?: { close(): Promise<void> } }> }).entries.get(id)?.connection?.close();
}

describe('MCP: OAuth discovery happens only at the settings page', () => {
  const cleanup: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0)) await c();
  });

  it('a run meets a server whose OAuth metadata points into the user\'s network: no request leaves for discovery, the trap gets nothing', async () => {
    const server = await startMcpServer({ oauth: true, name: 'tools' });
    const trap = await startTrap();
    const { service, registry, opened } = makeService();
    cleanup.push(() => service.dispose(), () => server.close(), () => trap.close());
    // Added while it needs no sign-in: its tools are known.
    server.state.authRequired = false;
    const [view] = await service.add({ url: server.url, name: 'Tools' });
    expect(view).toMatchObject({ status: 'connected' });
    // Then it wants OAuth, and its metadata names the trap for every endpoint.
    server.state.authRequired = true;
    server.state.oauthMetadata = {
      resource_metadata: `${trap.origin}/prm`,
      authorization_servers: [trap.origin],
      authorization_endpoint: `${trap.origin}/authorize`,
      token_endpoint: `${trap.origin}/token`,
      registration_endpoint: `${trap.origin}/register`,
    };
    await dropConnection(service, view!.id);
    const before = server.state.requests.length;
    const out = await registry.invoke('mcp_tools_get_weather', { city: 'Oslo' });
    expect(out).toMatchObject({ ok: false });
    expect((out as { error: string }).error).toMatch(/needs you to sign in: open Settings → Agent → MCP servers/);
    expect(trap.requests).toEqual([]);
    // Not even the server's own metadata was asked for: a run discovers nothing.
    expect(server.state.requests.slice(before).filter((r) => r.includes('well-known'))).toEqual([]);
    expect(opened).toEqual([]);
  });

  it('the connection made at the settings page does no discovery later, during a run', async () => {
    const server = await startMcpServer({ oauth: true, name: 'tools' });
    const trap = await startTrap();
    const { service, registry, opened } = makeService();
    cleanup.push(() => service.dispose(), () => server.close(), () => trap.close());
    server.state.authRequired = false;
    await service.add({ url: server.url, name: 'Tools' });
    // Still connected from the settings page; now the server answers 401 and names the trap.
    server.state.authRequired = true;
    server.state.oauthMetadata = { resource_metadata: `${trap.origin}/prm`, authorization_servers: [trap.origin] };
    const before = server.state.requests.length;
    const out = await registry.invoke('mcp_tools_get_weather', { city: 'Oslo' });
    expect(out).toMatchObject({ ok: false });
    expect(trap.requests).toEqual([]);
    expect(server.state.requests.slice(before).filter((r) => r.includes('well-known'))).toEqual([]);
    expect(opened).toEqual([]);
  });

  it('at the settings page the sign-in that needs another address on the user\'s network is refused and shown; the user may allow it', async () => {
    const server = await startMcpServer({ oauth: true, name: 'tools' });
    const trap = await startTrap();
    const { service, saved } = makeService();
    cleanup.push(() => service.dispose(), () => server.close(), () => trap.close());
    server.state.oauthMetadata = { authorization_servers: [trap.origin] };
    const [view] = await service.add({ url: server.url, name: 'Tools' });
    expect(trap.requests).toEqual([]);
    expect(view).toMatchObject({ status: 'error', localAsk: { origin: trap.origin } });
    expect(view!.lastError).toMatch(new RegExp(`sends its sign-in to ${trap.origin.replace(/[.:/]/g, '\\$&')}, an address on your own network that is not the server's`));
    // Only the address it asked for can be allowed.
    await expect(service.allowOrigin(view!.id, 'http://localhost:1')).rejects.toBeInstanceOf(McpSettingsError);
    const [after] = await service.allowOrigin(view!.id, trap.origin);
    expect(saved()[0]!.allowedOrigins).toEqual([trap.origin]);
    // Now the sign-in reaches it (this trap is no authorization server, so it still fails, differently).
    expect(trap.requests.length).toBeGreaterThan(0);
    expect(after!.localAsk).toBeUndefined();
  });

  it('a public-looking name that resolves into the user\'s network (Firefox) is refused before any request', async () => {
    const server = await startMcpServer({ oauth: true, name: 'tools' });
    const trap = await startTrap();
    // auth.test is served by the trap; the probe says it resolves to 10.0.0.7.
    const network: typeof fetch = (input, init) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      return url.hostname === 'auth.test' ? fetch(`http://127.0.0.1:${trap.port}${url.pathname}`, init) : fetch(input, init);
    };
    const probe: AddressProbe = { resolve: async (host) => (host === 'auth.test' ? ['10.0.0.7'] : ['203.0.113.4']) };
    const { service } = makeService({ fetch: network, probe });
    cleanup.push(() => service.dispose(), () => server.close(), () => trap.close());
    server.state.oauthMetadata = { authorization_servers: [`http://auth.test:${trap.port}`] };
    const [view] = await service.add({ url: server.url, name: 'Tools' });
    expect(trap.requests).toEqual([]);
    expect(view).toMatchObject({ localAsk: { origin: `http://auth.test:${trap.port}`, address: '10.0.0.7' } });
    expect(view!.lastError).toContain(`http://auth.test:${trap.port} (10.0.0.7)`);
  });

  it('where the browser tells the address only after the answer (Chrome), the answer is not used', async () => {
    const server = await startMcpServer({ oauth: true, name: 'tools' });
    const trap = await startTrap((req, res) => {
      // It answers like an authorization server would, with endpoints of its own.
      if (!req.url?.includes('oauth-authorization-server')) return false;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ issuer: `http://auth.test:${trapPort()}`, authorization_endpoint: `http://auth.test:${trapPort()}/authorize`, token_endpoint: `http://auth.test:${trapPort()}/token`, registration_endpoint: `http://auth.test:${trapPort()}/register`, response_types_supported: ['code'], code_challenge_methods_supported: ['S256'] }));
      return true;
    });
    const trapPort = () => trap.port;
    const network: typeof fetch = (input, init) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      return url.hostname === 'auth.test' ? fetch(`http://127.0.0.1:${trap.port}${url.pathname}`, init) : fetch(input, init);
    };
    const probe: AddressProbe = {
      watch: (url) => ({ location: async () => null, address: async () => (new URL(url).hostname === 'auth.test' ? '192.168.4.4' : '203.0.113.4'), stop: () => undefined }),
    };
    const { service, opened } = makeService({ fetch: network, probe });
    cleanup.push(() => service.dispose(), () => server.close(), () => trap.close());
    server.state.oauthMetadata = { authorization_servers: [`http://auth.test:${trap.port}`] };
    const [view] = await service.add({ url: server.url, name: 'Tools' });
    // The first answer came back from 192.168.4.4: withheld, so nothing it named was used.
    expect(trap.requests).toHaveLength(1);
    expect(trap.requests.some((r) => r.includes('/register'))).toBe(false);
    expect(opened).toEqual([]);
    expect(view).toMatchObject({ localAsk: { origin: `http://auth.test:${trap.port}`, address: '192.168.4.4' } });
  });
});

describe('the guarded fetch', () => {
  const cleanup: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0)) await c();
  });

  it('never lets the browser follow a redirect by itself: a POST the server redirects does not reach the target', async () => {
    const trap = await startTrap();
    const server = await startTrap((req, res) => {
      res.writeHead(307, { location: `${trap.origin}/mcp` });
      res.end();
      return true;
    });
    cleanup.push(() => trap.close(), () => server.close());
    const guarded = guardedFetch(fetch, { serverUrl: `http://127.0.0.1:${server.port}/mcp`, mode: { interactive: false }, allowedOrigins: () => [], knownUrls: async () => [] });
    const response = await guarded(`http://127.0.0.1:${server.port}/mcp`, { method: 'POST', body: '{"secret":1}', redirect: 'follow' });
    expect(response.status).toBe(307);
    expect(trap.requests).toEqual([]);
  });

  it('during a run: the server\'s origin and the token endpoint of the sign-in only', async () => {
    const asked: string[] = [];
    const base: typeof fetch = async (input) => {
      asked.push(String(input));
      return new Response('{}', { status: 200 });
    };
    const guarded = guardedFetch(base, {
      serverUrl: 'https://mcp.example.com/mcp',
      mode: { interactive: false },
      allowedOrigins: () => [],
      knownUrls: async () => ['https://auth.example.com/oauth/token'],
    });
    await guarded('https://mcp.example.com/.well-known/oauth-protected-resource');
    await guarded('https://auth.example.com/oauth/token?x=1');
    const refused = await guarded('https://auth.example.com/.well-known/oauth-authorization-server').then(() => null, (e: unknown) => e);
    expect(refused).toBeInstanceOf(McpReachError);
    expect((refused as McpReachError).reason).toBe('discovery');
    expect(asked).toEqual(['https://mcp.example.com/.well-known/oauth-protected-resource', 'https://auth.example.com/oauth/token?x=1']);
    expect(guarded.refusals).toHaveLength(1);
  });

  it('at the settings page: anything public; the user\'s network only where allowed', async () => {
    const asked: string[] = [];
    const base: typeof fetch = async (input) => {
      asked.push(String(input));
      return new Response('{}', { status: 200 });
    };
    const allowed: string[] = [];
    const guarded = guardedFetch(base, { serverUrl: 'http://10.0.0.2:8000/mcp', mode: { interactive: true }, allowedOrigins: () => allowed, knownUrls: async () => [] });
    await guarded('http://10.0.0.2:8000/.well-known/oauth-protected-resource');
    await guarded('https://auth.example.com/.well-known/oauth-authorization-server');
    for (const url of ['http://10.0.0.3/token', 'http://router/register', 'http://[::1]:9000/x']) {
      await expect(guarded(url), url).rejects.toMatchObject({ reason: 'local' });
    }
    allowed.push('http://10.0.0.3');
    await guarded('http://10.0.0.3/token');
    expect(asked).toEqual(['http://10.0.0.2:8000/.well-known/oauth-protected-resource', 'https://auth.example.com/.well-known/oauth-authorization-server', 'http://10.0.0.3/token']);
  });
});
