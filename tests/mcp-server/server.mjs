// A real MCP server for tests, written with the official TypeScript SDK: Streamable HTTP at
// `/mcp` (stateful sessions, so `notifications/tools/list_changed` reaches the client), or only the
// older HTTP+SSE transport (`GET /sse` + `POST /messages`) with `{ legacy: true }`. Listens on
// 127.0.0.1, port 0 unless told.
//
// Tools:
// - `get_weather {city}` → text;
// - `get_forecast {city, days}` → structured content (with an output schema) and its JSON as text;
// - `fail_always {}` → an error result (`isError: true`);
// - `slow_count {seconds}` → waits, then answers (cancellation, the server stopped mid-call);
// - `unlock_secret {}` → adds the tool `read_secret` and sends `tools/list_changed`;
// - `get_chart {city}` → text, an image (a 1×1 PNG, `CHART_PNG`) and a resource link;
// - `read_secret` (after unlock) → text.
// With `{ hostile: true }`, tools whose schemas carry patterns built to backtrack (declared in the
// JSON Schema only, through zod's `.meta`, so this server never runs them itself):
// - `check_code {code}`: `code` must match `^(a+)+$`;
// - `lookahead_code {code}`: `code` must match `^(?=a)a+$` (lookahead, no linear-time match);
// - `echo_code {length}` → structured content `{code: "a"×length + "!", labels: {"b"×length + "!": "x"}}`
//   against an output schema whose `code` must match `^(a+)+$` and whose `labels` keys go by
//   `patternProperties` `^(b+)+$`.
// With `{ token }` every request needs `Authorization: Bearer <token>` (401 otherwise).
// With `{ oauth: true }` the server is also its own OAuth 2.1 authorization server: protected
// resource and authorization server metadata, dynamic client registration, `/authorize` (approves
// at once: 302 back to the redirect URI with a code), `/token` (PKCE S256 checked; refresh tokens);
// access tokens last `tokenTtlSeconds` (default 3600). `state.authRequired` (true with `oauth`)
// can be switched at run time; `state.oauthMetadata` overrides fields of both metadata documents
// (`resource_metadata` too: the address the 401 names), to point them elsewhere. `{ host }`: the
// name the server calls itself by (a TEST_HOSTS name that resolves to 127.0.0.1), else 127.0.0.1.
// `state.requests` lists every request as `METHOD /path`.

import { createHash, randomUUID } from 'node:crypto';
import http from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';

/** The image `get_chart` returns (base64). */
export const CHART_PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

/**
 * @param {{ port?: number, legacy?: boolean, token?: string, name?: string, oauth?: boolean, tokenTtlSeconds?: number, host?: string, hostile?: boolean }} [options]
 */
export async function startMcpServer(options = {}) {
  const state = { unlocked: false, calls: [], cancelled: [], requests: /** @type {string[]} */ ([]), authRequired: Boolean(options.oauth), oauthMetadata: /** @type {Record<string, unknown>} */ ({}), oauth: { clients: new Map(), codes: new Map(), tokens: new Map(), refreshes: new Map(), issued: 0, refreshed: 0 } };
  /** Every live McpServer (one per session), to tell each about a changed list. */
  const servers = new Set();
  const sockets = new Set();

  function makeServer() {
    const server = new McpServer({ name: options.name ?? 'test-mcp', version: '1.0.0' }, { capabilities: { tools: { listChanged: true } } });
    server.registerTool(
      'get_weather',
      {
        description: 'The weather in a city now.',
        inputSchema: { city: z.string().describe('The city') },
        annotations: { readOnlyHint: true, openWorldHint: true },
      },
      async ({ city }) => {
        state.calls.push({ tool: 'get_weather', city });
        return { content: [{ type: 'text', text: `Weather in ${city}: 21 °C, light breeze from the north-west.` }] };
      },
    );
    server.registerTool(
      'get_forecast',
      {
        description: 'A forecast of several days, as data.',
        inputSchema: { city: z.string(), days: z.number().int().min(1).max(7) },
        outputSchema: { city: z.string(), days: z.array(z.object({ day: z.number(), high: z.number(), sky: z.string() })) },
        annotations: { readOnlyHint: true },
      },
      async ({ city, days }) => {
        state.calls.push({ tool: 'get_forecast', city, days });
        const structured = { city, days: Array.from({ length: days }, (_, i) => ({ day: i + 1, high: 18 + i, sky: i % 2 ? 'cloudy' : 'sunny' })) };
        return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
      },
    );
    server.registerTool(
      'fail_always',
      { description: 'Always fails.', inputSchema: {}, annotations: { destructiveHint: false } },
      async () => {
        state.calls.push({ tool: 'fail_always' });
        return { isError: true, content: [{ type: 'text', text: 'Inventory backend unreachable (code 503)' }] };
      },
    );
    server.registerTool(
      'slow_count',
      { description: 'Counts slowly, one second per step.', inputSchema: { seconds: z.number().int().min(1).max(120) } },
      async ({ seconds }, extra) => {
        state.calls.push({ tool: 'slow_count', seconds });
        for (let i = 0; i < seconds; i++) {
          if (extra.signal.aborted) {
            state.cancelled.push('slow_count');
            throw new Error('cancelled');
          }
          // (unref: a count left running by a server stopped mid-call does not keep the test's process alive.)
          await new Promise((r) => setTimeout(r, 1000).unref());
        }
        if (extra.signal.aborted) state.cancelled.push('slow_count');
        return { content: [{ type: 'text', text: `Counted to ${seconds}.` }] };
      },
    );
    server.registerTool(
      'unlock_secret',
      { description: 'Adds the read_secret tool to this server.', inputSchema: {} },
      async () => {
        state.calls.push({ tool: 'unlock_secret' });
        if (!state.unlocked) {
          state.unlocked = true;
          for (const s of servers) addSecretTool(s);
        }
        return { content: [{ type: 'text', text: 'Unlocked: read_secret is now available.' }] };
      },
    );
    server.registerTool(
      'get_chart',
      { description: 'A temperature chart of a city, as an image.', inputSchema: { city: z.string() }, annotations: { readOnlyHint: true } },
      async ({ city }) => {
        state.calls.push({ tool: 'get_chart', city });
        return {
          content: [
            { type: 'text', text: `Temperature chart of ${city}.` },
            { type: 'image', data: CHART_PNG, mimeType: 'image/png' },
            { type: 'resource_link', uri: `https://charts.example/${encodeURIComponent(city)}.png`, name: `${city}.png`, mimeType: 'image/png' },
          ],
        };
      },
    );
    if (options.hostile) addHostileTools(server);
    if (state.unlocked) addSecretTool(server);
    servers.add(server);
    return server;
  }

  function addHostileTools(server) {
    const backtracking = z.string().meta({ pattern: '^(a+)+$' });
    server.registerTool('check_code', { description: 'Checks a code.', inputSchema: { code: backtracking } }, async ({ code }) => {
      state.calls.push({ tool: 'check_code', code });
      return { content: [{ type: 'text', text: `Code ${code} is fine.` }] };
    });
    server.registerTool('lookahead_code', { description: 'Checks a code, with lookahead.', inputSchema: { code: z.string().meta({ pattern: '^(?=a)a+$' }) } }, async ({ code }) => {
      state.calls.push({ tool: 'lookahead_code', code });
      return { content: [{ type: 'text', text: `Code ${code} is fine.` }] };
    });
    server.registerTool(
      'echo_code',
      {
        description: 'Returns a code as structured content.',
        inputSchema: { length: z.number().int().min(1).max(100_000) },
        outputSchema: { code: backtracking, labels: z.object({}).passthrough().meta({ patternProperties: { '^(b+)+$': { type: 'number' } } }) },
      },
      async ({ length }) => {
        state.calls.push({ tool: 'echo_code', length });
        const structured = { code: `${'a'.repeat(length)}!`, labels: { [`${'b'.repeat(length)}!`]: 'x' } };
        return { content: [{ type: 'text', text: 'A code.' }], structuredContent: structured };
      },
    );
  }

  function addSecretTool(server) {
    // registerTool sends tools/list_changed itself once the server is connected.
    server.registerTool('read_secret', { description: 'Reads the secret.', inputSchema: {}, annotations: { readOnlyHint: true } }, async () => {
      state.calls.push({ tool: 'read_secret' });
      return { content: [{ type: 'text', text: 'The secret word is TANGERINE-42.' }] };
    });
  }

  const transports = new Map();
  let origin = '';

  const readBody = (req) =>
    new Promise((resolve, reject) => {
      const chunks = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        try {
          resolve(text ? JSON.parse(text) : undefined);
        } catch (error) {
          reject(error);
        }
      });
      req.on('error', reject);
    });

  const json = (res, status, body, headers = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers });
    res.end(JSON.stringify(body));
  };
  const readForm = (req) =>
    new Promise((resolve) => {
      const chunks = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => resolve(new URLSearchParams(Buffer.concat(chunks).toString('utf8'))));
    });
  const b64url = (buf) => buf.toString('base64').replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');

  /** The OAuth endpoints; true when the request was one of them. */
  async function handleOAuth(req, res, url) {
    const oauth = state.oauth;
    if (url.pathname.startsWith('/.well-known/oauth-protected-resource')) {
      json(res, 200, { resource: `${origin}/mcp`, authorization_servers: [origin], bearer_methods_supported: ['header'], ...state.oauthMetadata });
      return true;
    }
    if (url.pathname === '/.well-known/oauth-authorization-server' || url.pathname === '/.well-known/openid-configuration') {
      json(res, 200, {
        issuer: origin,
        authorization_endpoint: `${origin}/authorize`,
        token_endpoint: `${origin}/token`,
        registration_endpoint: `${origin}/register`,
        response_types_supported: ['code'],
        grant_types_supported: ['authorization_code', 'refresh_token'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['none'],
        ...state.oauthMetadata,
      });
      return true;
    }
    if (url.pathname === '/register' && req.method === 'POST') {
      const metadata = await readBody(req);
      const client = { ...metadata, client_id: `client-${oauth.clients.size + 1}`, client_id_issued_at: Math.floor(Date.now() / 1000) };
      oauth.clients.set(client.client_id, client);
      json(res, 201, client);
      return true;
    }
    if (url.pathname === '/authorize') {
      const p = url.searchParams;
      const client = oauth.clients.get(p.get('client_id'));
      const redirect = p.get('redirect_uri');
      if (!client || !client.redirect_uris?.includes(redirect) || p.get('code_challenge_method') !== 'S256' || !p.get('code_challenge')) {
        json(res, 400, { error: 'invalid_request' });
        return true;
      }
      const code = randomUUID();
      oauth.codes.set(code, { clientId: client.client_id, challenge: p.get('code_challenge'), redirect });
      const back = new URL(redirect);
      back.searchParams.set('code', code);
      if (p.get('state')) back.searchParams.set('state', p.get('state'));
      res.writeHead(302, { location: back.href });
      res.end();
      return true;
    }
    if (url.pathname === '/token' && req.method === 'POST') {
      const form = await readForm(req);
      const issue = () => {
        const access = `at-${randomUUID()}`;
        const refresh = `rt-${randomUUID()}`;
        oauth.tokens.set(access, Date.now() + (options.tokenTtlSeconds ?? 3600) * 1000);
        oauth.refreshes.set(refresh, true);
        oauth.issued++;
        return { access_token: access, token_type: 'Bearer', expires_in: options.tokenTtlSeconds ?? 3600, refresh_token: refresh };
      };
      if (form.get('grant_type') === 'authorization_code') {
        const entry = oauth.codes.get(form.get('code'));
        oauth.codes.delete(form.get('code'));
        const verifier = form.get('code_verifier') ?? '';
        if (!entry || entry.clientId !== form.get('client_id') || b64url(createHash('sha256').update(verifier).digest()) !== entry.challenge) {
          json(res, 400, { error: 'invalid_grant' });
          return true;
        }
        json(res, 200, issue());
        return true;
      }
      if (form.get('grant_type') === 'refresh_token' && oauth.refreshes.delete(form.get('refresh_token'))) {
        oauth.refreshed++;
        json(res, 200, issue());
        return true;
      }
      json(res, 400, { error: 'invalid_grant' });
      return true;
    }
    return false;
  }

  const httpServer = http.createServer(async (req, res) => {
    try {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      state.requests.push(`${req.method} ${url.pathname}`);
      if (options.oauth) {
        if (await handleOAuth(req, res, url)) return;
      }
      if (state.authRequired) {
        const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
        const expires = token ? state.oauth.tokens.get(token) : undefined;
        if (!expires || expires < Date.now()) {
          const metadataUrl = state.oauthMetadata.resource_metadata ?? `${origin}/.well-known/oauth-protected-resource/mcp`;
          json(res, 401, { error: 'invalid_token' }, { 'www-authenticate': `Bearer resource_metadata="${metadataUrl}"` });
          return;
        }
      }
      if (options.token && req.headers.authorization !== `Bearer ${options.token}`) {
        res.writeHead(401, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: 'invalid_token', error_description: 'The bearer token is missing or wrong.' }));
        return;
      }
      if (options.legacy) {
        if (req.method === 'GET' && url.pathname === '/sse') {
          const transport = new SSEServerTransport('/messages', res);
          transports.set(transport.sessionId, transport);
          const server = makeServer();
          res.on('close', () => {
            transports.delete(transport.sessionId);
            servers.delete(server);
          });
          await server.connect(transport);
          return;
        }
        if (req.method === 'POST' && url.pathname === '/messages') {
          const transport = transports.get(url.searchParams.get('sessionId'));
          if (!transport) {
            res.writeHead(404).end('No such session');
            return;
          }
          await transport.handlePostMessage(req, res, await readBody(req));
          return;
        }
        res.writeHead(404).end('Not found');
        return;
      }
      if (url.pathname !== '/mcp') {
        res.writeHead(404).end('Not found');
        return;
      }
      const sessionId = req.headers['mcp-session-id'];
      const body = req.method === 'POST' ? await readBody(req) : undefined;
      let transport = typeof sessionId === 'string' ? transports.get(sessionId) : undefined;
      if (!transport) {
        if (req.method !== 'POST' || !isInitializeRequest(body)) {
          res.writeHead(sessionId ? 404 : 400, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: sessionId ? 'Session not found' : 'No session' }, id: null }));
          return;
        }
        const server = makeServer();
        transport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (id) => transports.set(id, transport),
        });
        transport.onclose = () => {
          if (transport.sessionId) transports.delete(transport.sessionId);
          servers.delete(server);
        };
        await server.connect(transport);
      }
      await transport.handleRequest(req, res, body);
    } catch (error) {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(String(error?.message ?? error));
    }
  });
  httpServer.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise((resolve) => httpServer.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = httpServer.address();
  origin = `http://${options.host ?? '127.0.0.1'}:${port}`;
  let closed = false;
  return {
    port,
    origin,
    /** The address a client is given: `/mcp`, or `/sse` for the legacy server. */
    url: `${origin}${options.legacy ? '/sse' : '/mcp'}`,
    state,
    /** How many sessions are open now. */
    get sessions() {
      return transports.size;
    },
    /** Stops at once: open streams and sockets are cut (a server that goes away). */
    async close() {
      if (closed) return;
      closed = true;
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => httpServer.close(() => resolve()));
    },
  };
}

// `node tests/mcp-server/server.mjs [--legacy] [--token T] [--oauth] [port]` runs one by hand.
if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  const legacy = args.includes('--legacy');
  const tokenAt = args.indexOf('--token');
  const token = tokenAt >= 0 ? args[tokenAt + 1] : undefined;
  const port = Number(args.find((a, i) => /^\d+$/.test(a) && args[i - 1] !== '--token') ?? 0);
  const server = await startMcpServer({ legacy, token, port, oauth: args.includes('--oauth') });
  console.log(`MCP test server at ${server.url}`);
}
