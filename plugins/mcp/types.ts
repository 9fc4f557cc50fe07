import type { Said } from '@/core/i18n/catalog';

/** One MCP server as the user configured it (kept in the plugin's storage; credentials apart, as secrets). */
export interface McpServerConfig {
  /** Stable id: the server's plugin is `mcp:<id>`, its credentials the secret `server.<id>`. */
  id: string;
  url: string;
  /** The name the user gave, or '' (then the host is shown). */
  name: string;
  /** The prefix part of its tools' names (`mcp_<slug>_…`), fixed when added so names stay put. */
  slug: string;
  addedAt: number;
  /** The tools the server listed last, so they are offered after a restart before connecting. */
  tools: CachedTool[];
  /**
   * The server came with its address from a settings file and the user has not confirmed it in
   * Settings since (Confirm address, or saving its credentials): its address is not one the user
   * configured, so its tools' calls on the local network ask as such, and it is not connected to
   * on its own at start-up.
   */
  imported?: boolean;
  /**
   * Origins on the user's own network, other than the server's, that the user allowed for this
   * server at the settings page (its sign-in's: an authorization server on the intranet).
   */
  allowedOrigins?: string[];
}

/** A tool as the server described it (only what the mapping needs). */
export interface CachedTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean; openWorldHint?: boolean; idempotentHint?: boolean; title?: string };
}

export type McpServerStatus = 'idle' | 'connecting' | 'connected' | 'error';

/** A server as the settings page shows it: never its credentials, only whether there are some. */
export interface McpServerView {
  id: string;
  url: string;
  name: string;
  /** The name shown: the user's, else the host. */
  label: string;
  enabled: boolean;
  status: McpServerStatus;
  transport?: 'streamable-http' | 'sse';
  /** Tools offered to the agent, by the model's name and the server's. */
  tools: Array<{ name: string; serverName: string; description: string; readOnlyHint?: boolean }>;
  lastError?: string;
  /** The same words for the page to translate. */
  lastErrorSaid?: Said;
  hasCredentials: boolean;
  /** Signed in with OAuth (tokens kept). */
  signedIn?: boolean;
  /** The server wants an OAuth sign-in: Reconnect signs in. */
  needsSignIn?: boolean;
  /**
   * The sign-in needs an address on the user's own network that is not the server's (`origin`,
   * and the IP it resolved to or answered from when its name looked public): not contacted; the
   * user may allow it here.
   */
  localAsk?: { origin: string; address?: string };
  connectedAt?: number;
  /** Its address came from a settings file and is not confirmed yet (`McpServerConfig.imported`). */
  imported?: boolean;
}

/** What the settings form sends to add a server. */
export interface AddMcpServerInput {
  url: string;
  name?: string;
  /** Sent as `Authorization: Bearer <token>`. */
  bearerToken?: string;
  /** Other headers, one `Name: value` per line. */
  headers?: string;
}
