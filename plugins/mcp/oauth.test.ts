import { afterEach, describe, expect, it } from 'vitest';
import { interpretedValidators } from '@/core/registry/interpreted-validator';
import { ToolRegistry } from '@/core/registry/registry';
import { unwrapUntrusted } from '@/core/registry/untrusted';
import { startMcpServer } from '../../tests/mcp-server/server.mjs';
import type { OAuthState } from './oauth';
import { McpService } from './service';
import type { McpServerConfig } from './types';

const REDIRECT = 'https://sidequest-test.chromiumapp.org/';

/**
 * A service whose sign-in plays the browser's `identity.launchWebAuthFlow`: it opens the
 * authorization URL and stops at the redirect back to the extension.
 */
function makeService(options: { refuse?: boolean; answer?: (location: URL) => string } = {}) {
  let saved: McpServerConfig[] = [];
  const secrets = new Map<string, string>();
  const opened: string[] = [];
  const registry = new ToolRegistry(interpretedValidators);
  const service = new McpService({
    registry,
    parentId: 'mcp',
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
        if (options.refuse) return `${REDIRECT}?error=access_denied&error_description=The+user+said+no`;
        const answer = await fetch(url, { redirect: 'manual' });
        const location = answer.headers.get('location')!;
        return options.answer ? options.answer(new URL(location)) : location;
      },
    },
  });
  return { service, registry, secrets, opened };
}

describe('OAuth 2.1 sign-in to an MCP server (real SDK client, a test authorization server)', () => {
  const cleanup: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0)) await c();
  });

  it('discovery, registration, PKCE and the token exchange; tokens kept as a secret and refreshed', async () => {
    const server = await startMcpServer({ oauth: true, tokenTtlSeconds: 1 });
    const { service, registry, secrets, opened } = makeService();
    cleanup.push(() => service.dispose(), () => server.close());
    const [view] = await service.add({ url: server.url, name: 'Auth' });
    expect(view).toMatchObject({ status: 'connected', signedIn: true, tools: expect.any(Array) });
    expect(opened).toHaveLength(1);
    const authorize = new URL(opened[0]!);
    expect(authorize.pathname).toBe('/authorize');
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorize.searchParams.get('redirect_uri')).toBe(REDIRECT);
    expect(authorize.searchParams.get('state')).toMatch(/^[0-9a-f]{32}$/);
    const kept = JSON.parse(secrets.get(view!.id)!) as OAuthState;
    expect(kept.tokens?.access_token).toMatch(/^at-/);
    expect(kept.client?.client_id).toBe('client-1');
    // The token lasts a second: the next call is refused, refreshed without the user, and runs.
    await new Promise((r) => setTimeout(r, 1200));
    const out = await registry.invoke('mcp_auth_get_weather', { city: 'Oslo' });
    expect(unwrapUntrusted((out as { output: string }).output)?.content).toMatch(/Weather in Oslo/);
    expect(server.state.oauth.refreshed).toBeGreaterThanOrEqual(1);
    expect(opened).toHaveLength(1);
  });

  it('during a run nobody is asked to sign in: the call says to sign in from the settings', async () => {
    const server = await startMcpServer({ oauth: true });
    const { service, registry, opened } = makeService();
    cleanup.push(() => service.dispose(), () => server.close());
    const [view] = await service.add({ url: server.url, name: 'Auth' });
    // The server forgets every token: a new sign-in is needed.
    server.state.oauth.tokens.clear();
    server.state.oauth.refreshes.clear();
    await service.reconnect(view!.id).catch(() => undefined);
    expect(opened.length).toBe(2);
    server.state.oauth.tokens.clear();
    server.state.oauth.refreshes.clear();
    // A lost connection: the next call connects again, non-interactively.
    await (service as unknown as { entries: Map<string, { connection?: { close(): Promise<void> } }> }).entries.get(view!.id)?.connection?.close();
    const out = await registry.invoke('mcp_auth_get_weather', { city: 'Oslo' });
    expect(out).toMatchObject({ ok: false });
    expect((out as { error: string }).error).toMatch(/needs you to sign in: open Settings → Agent → MCP servers/);
    expect(opened.length).toBe(2);
    expect(service.views()[0]).toMatchObject({ status: 'error', needsSignIn: true });
  });

  it('an answer that comes back with another state (or none) is refused: its code is never exchanged, no token is kept', async () => {
    for (const [label, forge] of [
      ['another state', (back: URL) => (back.searchParams.set('state', 'f'.repeat(32)), back.href)],
      ['no state', (back: URL) => (back.searchParams.delete('state'), back.href)],
    ] as const) {
      const server = await startMcpServer({ oauth: true });
      const { service, secrets, opened } = makeService({ answer: forge });
      cleanup.push(() => service.dispose(), () => server.close());
      const [view] = await service.add({ url: server.url, name: 'Auth' });
      expect(opened, label).toHaveLength(1);
      // The authorization server did hand out a code for the real request…
      expect(server.state.oauth.codes.size, label).toBe(1);
      // …which was never exchanged, since the answer carrying it is not this request's.
      expect(server.state.oauth.issued, label).toBe(0);
      expect(view, label).toMatchObject({ status: 'error' });
      expect(view!.signedIn, label).toBeFalsy();
      expect(view!.lastError, label).toMatch(/does not belong to this request \(its state differs\)/);
      const kept = secrets.has(view!.id) ? (JSON.parse(secrets.get(view!.id)!) as OAuthState) : {};
      expect(kept.tokens, label).toBeUndefined();
    }
  });

  it('a refused sign-in is said; a server with no OAuth says to add a token', async () => {
    const server = await startMcpServer({ oauth: true });
    const { service } = makeService({ refuse: true });
    cleanup.push(() => service.dispose(), () => server.close());
    const [view] = await service.add({ url: server.url, name: 'Auth' });
    expect(view!.lastError).toMatch(/The sign-in was refused \(access_denied: The user said no\)/);

    const plain = await startMcpServer({ token: 'x' });
    cleanup.push(() => plain.close());
    const views = await service.add({ url: plain.url, name: 'Plain' });
    expect(views[1]!.lastError).toMatch(/requires credentials \(HTTP 401\) and Sidequest could not sign in with OAuth .*Add a bearer token or headers/);
  });
});
