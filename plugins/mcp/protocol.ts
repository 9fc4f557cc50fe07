import type { AddMcpServerInput, McpServerView } from './types';

declare module '@/core/messaging/protocol' {
  interface ProtocolMap {
    /** The configured MCP servers with their state (Settings → Agent → MCP servers). */
    listMcpServers(): McpServerView[];
    /** Adds a server (credentials kept as secrets) and connects to it once to read its tools. */
    addMcpServer(data: AddMcpServerInput): McpServerView[];
    /** Replaces a server's bearer token and headers (empty: none, OAuth if it offers it), then connects again. */
    setMcpServerCredentials(data: { id: string; bearerToken?: string; headers?: string }): McpServerView[];
    /** Drops the connection and connects again, reading the tool list afresh. */
    reconnectMcpServer(data: { id: string }): McpServerView[];
    /** Allows the address on the user's network that the server's sign-in asked for (`localAsk`), then connects again. */
    allowMcpServerOrigin(data: { id: string; origin: string }): McpServerView[];
    /** Switches one server's tools on or off for the agent. */
    setMcpServerEnabled(data: { id: string; enabled: boolean }): McpServerView[];
    /** The user confirms the address of a server that came from a settings file: it counts as one they configured. */
    confirmMcpServer(data: { id: string }): McpServerView[];
    /** Forgets a server, its tools and its credentials. */
    removeMcpServer(data: { id: string }): McpServerView[];
  }
  interface UiEventMap {
    'mcp-servers': { servers: McpServerView[] };
  }
}

export {};
