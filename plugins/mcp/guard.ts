import { resolvesLocal, type AddressProbe } from '@/core/net/address';
import { addressKind, localNetworkKind } from '@/core/net/local-network';

/**
 * When the MCP client may reach beyond the server's own address. `interactive` is true while the
 * user is at the settings page (Add server, Reconnect, Sign in): only then does OAuth discovery
 * run. The service turns it off once the connection is made, so the same connection used during a
 * run reaches nothing new.
 */
export interface McpReachMode {
  interactive: boolean;
}

export interface McpFetchRule {
  /** The server's URL as the user typed it: its origin is theirs to reach (local or not). */
  serverUrl: string;
  mode: McpReachMode;
  /** Origins on the user's own network the user allowed for this server (its sign-in's), in settings. */
  allowedOrigins(): readonly string[];
  /**
   * Addresses learned at sign-in that a run may reach: the OAuth token endpoint (refreshing a
   * token). Everything else outside the server's origin is discovery, which a run never does.
   */
  knownUrls(): Promise<readonly string[]>;
  probe?: AddressProbe;
}

/**
 * A request of the MCP client refused: `local`, an address on the user's network that is not the
 * server's own and that the user has not allowed (its origin, and the IP it resolved to or
 * answered from when the name looked public); `discovery`, an address outside the server that only
 * a sign-in at the settings page may reach.
 */
export class McpReachError extends Error {
  override name = 'McpReachError';
  constructor(
    readonly reason: 'local' | 'discovery',
    readonly url: string,
    readonly address?: string,
  ) {
    super(
      reason === 'local'
        ? `${new URL(url).origin}${address ? ` (served from ${address})` : ''} is on the user's own network and is not the MCP server's own address, so it was not used: only the user can allow it, in Settings → Agent → MCP servers.`
        : `${new URL(url).origin} is not the MCP server's own address: its sign-in (OAuth discovery) is done only from Settings → Agent → MCP servers, never while the agent runs.`,
    );
  }

  get origin(): string {
    return new URL(this.url).origin;
  }
}

/** The address of a request as the SDK hands it (a string, a URL or a Request). */
function urlOf(input: RequestInfo | URL): URL {
  return new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
}

/** The URL without query and fragment, to compare with an endpoint. */
function bare(url: URL): string {
  return `${url.origin}${url.pathname}`;
}

/**
 * Every request the MCP client makes (the server's own, the SDK's OAuth discovery, registration,
 * token requests, whatever a 401 or a redirect names) goes through this fetch:
 * - the browser never follows a redirect by itself (`redirect: 'manual'`): the SDK follows one only
 *   within the origin, and each hop comes back here;
 * - the server's own origin (the user typed it) may be reached;
 * - during a run, nothing else but the token endpoint learned at sign-in (no discovery);
 * - an address on the user's network (by its name, by what it resolves to in Firefox, by the address
 *   that answered in both browsers) only when the user allowed that origin for this server.
 * A refusal throws `McpReachError` before the request (or, where the browser tells the address
 * only once it answered, instead of the answer), and is kept in `refusals` for the settings page.
 */
export function guardedFetch(base: typeof fetch, rule: McpFetchRule): typeof fetch & { refusals: McpReachError[] } {
  const serverOrigin = new URL(rule.serverUrl).origin;
  const refusals: McpReachError[] = [];
  const refuse = (error: McpReachError): never => {
    refusals.push(error);
    throw error;
  };
  const guarded = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const url = urlOf(input);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`The MCP client does not request ${url.protocol} addresses.`);
    const request = { ...init, redirect: 'manual' as const };
    if (url.origin === serverOrigin) return base(input instanceof Request ? input : url.href, request);
    if (!rule.mode.interactive && !(await rule.knownUrls()).includes(bare(url))) refuse(new McpReachError('discovery', url.href));
    const allowed = rule.allowedOrigins().includes(url.origin);
    if (!allowed) {
      if (localNetworkKind(url)) refuse(new McpReachError('local', url.href));
      const resolved = await resolvesLocal(rule.probe, url.hostname);
      if (resolved) refuse(new McpReachError('local', url.href, resolved.ip));
    }
    const watch = allowed ? undefined : rule.probe?.watch?.(url.href);
    try {
      // From the network, so the browser reports the address that answered (a cached answer has none).
      const response = await base(input instanceof Request ? input : url.href, watch ? { ...request, cache: 'no-store' } : request);
      if (watch) {
        const ip = await watch.address();
        if (ip === null || addressKind(ip)) {
          void response.body?.cancel().catch(() => undefined);
          refuse(new McpReachError('local', url.href, ip ?? 'an address the browser did not report'));
        }
      }
      return response;
    } finally {
      watch?.stop();
    }
  };
  return Object.assign(guarded, { refusals });
}
