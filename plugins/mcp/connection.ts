import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport, SseError } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError, ToolListChangedNotificationSchema, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { SaidError, type MessageKey, type SaidParams } from '@/core/i18n/catalog';
import { McpReachError } from './guard';
import { McpSignInNeeded, type McpOAuthProvider } from './oauth';
import type { McpCallResult } from './results';
import { mcpSchemaValidator } from './validator';

/** Which of the two HTTP transports a server answered on. */
export type McpTransportKind = 'streamable-http' | 'sse';

/** The most tools taken from one server (pages of `tools/list` are read until this many). */
export const MAX_TOOLS = 256;
/** How long connecting (both transports tried) may take. */
export const CONNECT_TIMEOUT_MS = 15_000;
/** How long a liveness check may take after the transport reported a problem. */
const PING_TIMEOUT_MS = 3_000;

export interface ConnectOptions {
  url: string;
  /** Sent with every request (the bearer token, the user's headers). */
  headers: Record<string, string>;
  /** The server's tool list changed (`notifications/tools/list_changed`). */
  onToolsChanged(): void;
  /** The connection is gone (the server stopped, the network failed): pending calls have failed. */
  onLost(error: Error): void;
  /**
   * The fetch every request goes through: the service's guarded one (guard.ts), which keeps the
   * client within the server's address and the user's choices; tests hand their own.
   */
  fetch?: typeof fetch;
  /** The requests that fetch refused while connecting, to say why the connection failed. */
  refusals?: readonly McpReachError[];
  /**
   * OAuth for a server configured without credentials: the SDK discovers, registers, refreshes;
   * `signIn` (only when the user is at the settings page) opens the authorization URL in the
   * browser and resolves with the URL it was sent back to. Without `signIn`, a server that needs
   * the user to sign in fails with a message saying so.
   */
  oauth?: { provider: McpOAuthProvider; signIn?: (authorizationUrl: URL) => Promise<string> };
}

/** An error worded for the user and the model, with the HTTP status when there was one. */
export class McpConnectError extends SaidError {
  override name = 'McpConnectError';
  constructor(
    key: MessageKey,
    params: SaidParams,
    readonly status?: number,
    /** An address on the user's network the client needed and was refused (the user may allow it in settings). */
    readonly localOrigin?: { origin: string; address?: string },
  ) {
    super(key, params);
  }
}

/** The first error of `kind` in an error's `cause` chain (the SDK wraps some). */
function inChain<T>(error: unknown, kind: new (...args: never[]) => T): T | undefined {
  for (let e = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof kind) return e;
  }
  return undefined;
}

const CLIENT_INFO = { name: 'Sidequest', version: '0.1.0' };

/**
 * One live connection to an MCP server, over the official SDK's client: Streamable HTTP first,
 * the older HTTP+SSE transport when the server does not speak it. Calls fail with a clear error as
 * soon as the connection is found gone (the SDK alone would wait for its request timeout).
 */
export class McpConnection {
  private closed = false;
  private lostError: Error | undefined;
  private readonly lostWaiters = new Set<(error: Error) => void>();
  private probing = false;

  private constructor(
    private readonly client: Client,
    readonly transport: McpTransportKind,
    private readonly options: ConnectOptions,
    private readonly wire?: StreamableHTTPClientTransport | SSEClientTransport,
  ) {}

  /** Connects: Streamable HTTP, then HTTP+SSE unless the server refused the credentials. */
  static async open(options: ConnectOptions): Promise<McpConnection> {
    let url: URL;
    try {
      url = new URL(options.url);
    } catch {
      throw new McpConnectError('mcp.errors.badAddress', { url: options.url });
    }
    const doFetch = options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => fetch(input, init));
    // No cookies: the server gets the credentials the user configured, never the browser's session.
    const fetchNoCookies: typeof fetch = (input, init) => doFetch(input, { ...init, credentials: 'omit' });
    const requestInit: RequestInit = { headers: options.headers };
    const authProvider = options.oauth?.provider;
    let first: unknown;
    let signedIn = false;
    for (const kind of ['streamable-http', 'sse'] as const) {
      for (;;) {
        const client = new Client(CLIENT_INFO, { capabilities: {}, jsonSchemaValidator: mcpSchemaValidator });
        const transport =
          kind === 'streamable-http'
            ? new StreamableHTTPClientTransport(url, { requestInit, fetch: fetchNoCookies, authProvider })
            : new SSEClientTransport(url, { requestInit, fetch: fetchNoCookies, authProvider });
        const connection = new McpConnection(client, kind, options, transport);
        try {
          await withTimeout(client.connect(transport, { timeout: CONNECT_TIMEOUT_MS }), CONNECT_TIMEOUT_MS, 'mcp.errors.timeoutConnect');
          connection.listen();
          return connection;
        } catch (error) {
          await client.close().catch(() => undefined);
          const authorizationUrl = authProvider?.takeAuthorizationUrl();
          const refused = inChain(error, McpReachError) ?? options.refusals?.at(-1);
          // A run does no OAuth discovery: a server that wants one needs the settings page.
          if (inChain(error, McpSignInNeeded) || refused?.reason === 'discovery') {
            throw new McpConnectError('mcp.errors.needsSignIn', { url: options.url }, 401);
          }
          if (error instanceof UnauthorizedError && authProvider && authorizationUrl) {
            // The server wants the user to sign in (OAuth 2.1 with PKCE), once per attempt.
            if (!options.oauth?.signIn || signedIn) {
              throw new McpConnectError('mcp.errors.needsSignIn', { url: options.url }, 401);
            }
            signedIn = true;
            const code = authProvider.codeFrom(await options.oauth.signIn(authorizationUrl));
            await (transport as StreamableHTTPClientTransport | SSEClientTransport).finishAuth(code);
            continue;
          }
          if (refused) {
            // The sign-in needs an address on the user's network that is not the server's.
            const where = refused.address ? `${refused.origin} (${refused.address})` : refused.origin;
            throw new McpConnectError('mcp.errors.localAddress', { url: options.url, origin: where }, undefined, { origin: refused.origin, ...(refused.address ? { address: refused.address } : {}) });
          }
          if (authProvider?.attempted) {
            // It answered 401 and its OAuth could not be used (no metadata, no registration…).
            throw new McpConnectError('mcp.errors.oauthFailed', { url: options.url, detail: oneLineOf(error) }, 401);
          }
          const status = statusOf(error);
          // Refused credentials are the answer: the other transport would be refused the same way.
          if (status === 401 || status === 403) throw worded(error, options.url);
          first ??= error;
          break;
        }
      }
    }
    throw worded(first, options.url);
  }

  private listen(): void {
    this.client.setNotificationHandler(ToolListChangedNotificationSchema, () => this.options.onToolsChanged());
    this.client.onclose = () => this.lose(new Error('the connection was closed'));
    // The SDK reports a broken stream here but leaves pending requests waiting: check whether the
    // server still answers, and fail everything at once if not.
    this.client.onerror = (error) => void this.probe(error);
  }

  private async probe(cause: Error): Promise<void> {
    if (this.closed || this.probing) return;
    this.probing = true;
    try {
      await withTimeout(this.client.ping({ timeout: PING_TIMEOUT_MS }), PING_TIMEOUT_MS + 500, 'mcp.errors.timeoutPing');
    } catch {
      this.lose(new Error(cause.message || 'the connection failed'));
    } finally {
      this.probing = false;
    }
  }

  private lose(error: Error): void {
    if (this.lostError) return;
    this.lostError = error;
    for (const reject of this.lostWaiters) reject(error);
    this.lostWaiters.clear();
    if (!this.closed) this.options.onLost(error);
    void this.close();
  }

  /** Whether the server still answers (a ping); a connection found gone fails everything at once. */
  async check(): Promise<boolean> {
    if (!this.alive) return false;
    try {
      await withTimeout(this.client.ping({ timeout: PING_TIMEOUT_MS }), PING_TIMEOUT_MS + 500, 'mcp.errors.timeoutPing');
      return true;
    } catch (error) {
      this.lose(error instanceof Error ? error : new Error(String(error)));
      return false;
    }
  }

  get alive(): boolean {
    return !this.closed && !this.lostError;
  }

  /** A JSON-RPC error: the server's answer to a call, not a sign that the connection is gone. */
  isServerAnswer(error: unknown): boolean {
    return error instanceof McpError;
  }

  /** The server's tools (every page of `tools/list`, at most `MAX_TOOLS`). */
  async listTools(signal?: AbortSignal): Promise<Tool[]> {
    const tools: Tool[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.race(this.client.listTools(cursor ? { cursor } : undefined, { signal, timeout: CONNECT_TIMEOUT_MS }));
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor && tools.length < MAX_TOOLS);
    return tools.slice(0, MAX_TOOLS);
  }

  /**
   * Calls a tool. `signal` aborting (the user stopped the run, the registry's timeout) sends
   * `notifications/cancelled` to the server (the SDK does) and rejects at once.
   */
  async callTool(name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<McpCallResult> {
    // The registry's timeout is the one that counts: the SDK's own is set well past it.
    return (await this.race(this.client.callTool({ name, arguments: args }, undefined, { signal, timeout: 30 * 60_000 }))) as McpCallResult;
  }

  /**
   * Closes the connection. `terminate`: the user removed or reconnected the server, so a
   * Streamable HTTP session is ended on the server too (`DELETE`, at most a second).
   */
  async close({ terminate = false } = {}): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (terminate && this.wire instanceof StreamableHTTPClientTransport && this.wire.sessionId) {
      await withTimeout(this.wire.terminateSession(), 1000, 'mcp.errors.timeoutClose').catch(() => undefined);
    }
    await this.client.close().catch(() => undefined);
  }

  /** Rejects as soon as the connection is found gone. */
  private race<T>(promise: Promise<T>): Promise<T> {
    if (this.lostError) return Promise.reject(this.lostError);
    let waiter: ((error: Error) => void) | undefined;
    const gone = new Promise<never>((_, reject) => {
      waiter = reject;
      this.lostWaiters.add(reject);
    });
    return Promise.race([promise, gone]).finally(() => {
      if (waiter) this.lostWaiters.delete(waiter);
    });
  }
}

function oneLineOf(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).replace(/\s+/g, ' ').slice(0, 200);
}

function statusOf(error: unknown): number | undefined {
  if (error instanceof StreamableHTTPError || error instanceof SseError) return typeof error.code === 'number' ? error.code : undefined;
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'number' && code >= 100 && code < 600 ? code : undefined;
}

/** The connection failure in words the settings page and the model can act on. */
export function worded(error: unknown, url: string): McpConnectError {
  if (error instanceof McpConnectError) return error;
  const status = statusOf(error);
  const raw = error instanceof Error ? error.message : String(error);
  if (status === 401) {
    return new McpConnectError('mcp.errors.refused', { url }, 401);
  }
  if (status === 403) {
    return new McpConnectError('mcp.errors.forbidden', { url }, 403);
  }
  if (status !== undefined) return new McpConnectError('mcp.errors.notMcp', { url, status }, status);
  if (/fetch|network|ECONNREFUSED|terminated|connect/i.test(raw)) {
    return new McpConnectError('mcp.errors.unreachable', { url, detail: raw.slice(0, 200) });
  }
  return new McpConnectError('mcp.errors.connectFailed', { url, detail: raw.slice(0, 300) });
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: MessageKey): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new McpConnectError(what, { seconds: Math.round(ms / 1000) })), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
