import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ToolRegistry } from '@/core/registry/registry';
import type { Plugin } from '@/core/registry/types';
import { english, said, type Said } from '@/core/i18n/catalog';
import { oneLine, untrusted } from '@/core/registry/untrusted';
import type { AddressProbe } from '@/core/net/address';
import type { McpConnection, McpTransportKind } from './connection';
import { guardedFetch, type McpReachMode } from './guard';
import { McpOAuthProvider, type OAuthStore } from './oauth';
import { nameTools, serverSlug } from './naming';
import { mapCallResult } from './results';
import { checkUrl, credentialsFor, labelOf, McpSettingsError, serverOrigin } from './server-input';
import { cacheTool, serverTools } from './server-tools';
import type { AddMcpServerInput, McpServerConfig, McpServerStatus, McpServerView } from './types';


/** Where the servers' settings and credentials live (the plugin's IndexedDB storage). */
export interface McpStores {
  load(): Promise<McpServerConfig[]>;
  save(list: McpServerConfig[]): Promise<void>;
  /** A server's headers (its bearer token among them): a secret, like an API key. */
  getCredentials(id: string): Promise<Record<string, string> | undefined>;
  setCredentials(id: string, headers: Record<string, string> | undefined): Promise<void>;
  /** A server's OAuth client registration and tokens: a secret too. */
  oauth?(id: string): OAuthStore;
}

export interface McpServiceOptions {
  registry: ToolRegistry;
  stores: McpStores;
  /** The built-in plugin the servers belong to: switching it off switches every server off. */
  parentId: string;
  /** What `views()` returns may have changed. */
  onChange?(): void;
  /** The network (every request goes through the guard of guard.ts first); tests hand their own. */
  fetch?: typeof fetch;
  /** What the browser tells about addresses (core/net/address.ts), for the local-network rule. */
  probe?: AddressProbe;
  /**
   * OAuth for servers added without credentials: where the authorization server sends the browser
   * back (`identity.getRedirectURL()`), and how the user signs in (`identity.launchWebAuthFlow`).
   * Without them, such a server's 401 is only reported.
   */
  oauth?: { redirectUrl: string; signIn(authorizationUrl: URL): Promise<string> };
}

interface Entry {
  config: McpServerConfig;
  status: McpServerStatus;
  lastError?: string;
  lastErrorSaid?: Said;
  transport?: McpTransportKind;
  connectedAt?: number;
  hasCredentials: boolean;
  /** Whether an OAuth sign-in gave tokens. */
  signedIn?: boolean;
  needsSignIn?: boolean;
  /** An address on the user's network the sign-in needed and the user has not allowed (settings may). */
  localAsk?: { origin: string; address?: string };
  connection?: McpConnection;
  connecting?: Promise<McpConnection>;
  /** The server's tool name → the model's name. */
  names: Map<string, string>;
  disposePlugin?: () => void;
}

/** The plugin id of one server in the registry. */
export const serverPluginId = (id: string) => `mcp:${id}`;

/**
 * The MCP client side: each configured server is one plugin in the registry (`mcp:<id>`, source
 * `remote`, its own on/off switch under the `mcp` plugin's), whose tools call the server through
 * the official SDK. Connections are made lazily — when a call needs one, when the user adds or
 * reconnects a server — and the last tool list is kept, so after a background restart the tools
 * are offered again before any connection is made.
 */
export class McpService {
  private readonly entries = new Map<string, Entry>();
  private saving: Promise<void> = Promise.resolve();

  private switches = '';
  private readonly unwatch: () => void;

  /** How many servers it keeps and how many of them hold a connection (`ctx.retained`). */
  retainedSizes(): { servers: number; connections: number } {
    let connections = 0;
    for (const e of this.entries.values()) if (e.connection || e.connecting) connections++;
    return { servers: this.entries.size, connections };
  }

  constructor(private readonly options: McpServiceOptions) {
    // A switch changed elsewhere (this plugin's own in Settings → Plugins): the list shows it.
    this.unwatch = options.registry.onChange(() => {
      const now = [...this.entries.values()].map((e) => (this.enabled(e) ? '1' : '0')).join('');
      if (now !== this.switches) this.changed();
    });
  }

  /** Reads the configured servers and offers their last known tools (no connection yet). */
  async start(): Promise<void> {
    const configs = await this.options.stores.load();
    for (const config of configs) {
      if (this.entries.has(config.id)) continue;
      const entry: Entry = { config, status: 'idle', hasCredentials: Boolean(await this.options.stores.getCredentials(config.id)), names: new Map() };
      this.entries.set(config.id, entry);
      this.register(entry);
      // A server whose tools are not known yet (it was unreachable when added): try once now. Not
      // one whose address came from a settings file: nothing reaches it before the user says so.
      if (!config.tools.length && !config.imported && this.enabled(entry)) void this.connect(entry).catch(() => undefined);
    }
    this.changed();
  }

  views(): McpServerView[] {
    return [...this.entries.values()]
      .sort((a, b) => a.config.addedAt - b.config.addedAt)
      .map((entry) => ({
        id: entry.config.id,
        url: entry.config.url,
        name: entry.config.name,
        label: labelOf(entry.config),
        enabled: this.enabled(entry),
        status: entry.status,
        ...(entry.transport ? { transport: entry.transport } : {}),
        tools: entry.config.tools.map((t) => ({
          name: entry.names.get(t.name) ?? '',
          serverName: t.name,
          description: t.description ?? '',
          ...(t.annotations?.readOnlyHint ? { readOnlyHint: true } : {}),
        })),
        ...(entry.lastError ? { lastError: entry.lastError, lastErrorSaid: entry.lastErrorSaid } : {}),
        hasCredentials: entry.hasCredentials,
        ...(entry.signedIn ? { signedIn: true } : {}),
        ...(entry.needsSignIn ? { needsSignIn: true } : {}),
        ...(entry.localAsk ? { localAsk: { ...entry.localAsk } } : {}),
        ...(entry.connectedAt ? { connectedAt: entry.connectedAt } : {}),
        ...(entry.config.imported ? { imported: true } : {}),
      }));
  }

  /** Adds a server and connects once to read its tools; a failed connection is kept as its state. */
  async add(input: AddMcpServerInput): Promise<McpServerView[]> {
    const url = checkUrl(input.url);
    const headers = credentialsFor(url, input);
    for (const entry of this.entries.values()) {
      if (entry.config.url === url) throw entry.config.name ? new McpSettingsError('mcp.errors.duplicateNamed', { name: entry.config.name }) : new McpSettingsError('mcp.errors.duplicate');
    }
    const name = oneLine((input.name ?? '').trim(), 60);
    const taken = new Set([...this.entries.values()].map((e) => e.config.slug));
    const base = serverSlug(name, url);
    let slug = base;
    for (let n = 2; taken.has(slug); n++) slug = `${base.slice(0, 17)}_${n}`;
    const config: McpServerConfig = { id: crypto.randomUUID(), url, name, slug, addedAt: Date.now(), tools: [] };
    if (Object.keys(headers).length) await this.options.stores.setCredentials(config.id, headers);
    const entry: Entry = { config, status: 'idle', hasCredentials: Object.keys(headers).length > 0, names: new Map() };
    this.entries.set(config.id, entry);
    await this.persist();
    this.changed();
    await this.connect(entry, true).catch(() => undefined);
    return this.views();
  }

  /**
   * Replaces the server's credentials (none: OAuth where the server offers it) and connects again.
   * The user saved this server in its form: an address from a settings file is confirmed.
   */
  async setCredentials(id: string, input: { bearerToken?: string; headers?: string }): Promise<McpServerView[]> {
    const entry = this.entry(id);
    const headers = credentialsFor(entry.config.url, input);
    await this.options.stores.setCredentials(id, Object.keys(headers).length ? headers : undefined);
    entry.hasCredentials = Object.keys(headers).length > 0;
    if (entry.config.imported) {
      delete entry.config.imported;
      await this.persist();
    }
    return this.reconnect(id);
  }

  /** The user confirms the address of a server that came from a settings file. */
  async confirm(id: string): Promise<McpServerView[]> {
    const entry = this.entry(id);
    if (entry.config.imported) {
      delete entry.config.imported;
      await this.persist();
      this.changed();
    }
    return this.views();
  }

  /** Reads the servers again from storage (a settings file was imported): every connection is closed first. */
  async reload(): Promise<void> {
    for (const entry of this.entries.values()) {
      entry.disposePlugin?.();
      entry.disposePlugin = undefined;
      const old = entry.connection;
      entry.connection = undefined;
      await old?.close().catch(() => undefined);
    }
    this.entries.clear();
    await this.saving.catch(() => undefined);
    await this.start();
  }

  async remove(id: string): Promise<McpServerView[]> {
    const entry = this.entry(id);
    this.entries.delete(id);
    entry.disposePlugin?.();
    entry.disposePlugin = undefined;
    await entry.connection?.close({ terminate: true });
    entry.connection = undefined;
    await this.options.stores.setCredentials(id, undefined);
    await this.options.stores.oauth?.(id).save(undefined);
    await this.persist();
    this.changed();
    return this.views();
  }

  /** Drops the connection and connects again (reading the tool list afresh). */
  async reconnect(id: string): Promise<McpServerView[]> {
    const entry = this.entry(id);
    const old = entry.connection;
    entry.connection = undefined;
    await old?.close({ terminate: true });
    await this.connect(entry, true).catch(() => undefined);
    return this.views();
  }

  /**
   * The user allows, at the settings page, the address on their network that this server's sign-in
   * asked for (only the one it asked for), then connects again. Kept with the server.
   */
  async allowOrigin(id: string, origin: string): Promise<McpServerView[]> {
    const entry = this.entry(id);
    if (!entry.localAsk || entry.localAsk.origin !== origin) throw new McpSettingsError('mcp.errors.notAsked');
    entry.config.allowedOrigins = [...new Set([...(entry.config.allowedOrigins ?? []), origin])];
    entry.localAsk = undefined;
    await this.persist();
    return this.reconnect(id);
  }

  async setEnabled(id: string, enabled: boolean): Promise<McpServerView[]> {
    const entry = this.entry(id);
    await this.options.registry.setEnabled(serverPluginId(id), enabled);
    if (!enabled) {
      const old = entry.connection;
      entry.connection = undefined;
      await old?.close();
      entry.status = 'idle';
    }
    this.changed();
    return this.views();
  }

  /** Closes every connection (the plugin is disposed). */
  async dispose(): Promise<void> {
    this.unwatch();
    for (const entry of this.entries.values()) {
      entry.disposePlugin?.();
      await entry.connection?.close();
    }
    this.entries.clear();
  }

  // ——— Connections ———

  /** `interactive`: the user is at the settings page, so an OAuth sign-in may open. */
  private connect(entry: Entry, interactive = false): Promise<McpConnection> {
    if (entry.connection?.alive) return Promise.resolve(entry.connection);
    if (entry.connecting) return entry.connecting;
    entry.status = 'connecting';
    this.changed();
    const attempt = (async () => {
      // The SDK (its protocol's schemas are built as its modules load) is evaluated when a server
      // first connects, not at every start of the background.
      const { McpConnection, worded } = await import('./connection');
      const headers = (await this.options.stores.getCredentials(entry.config.id)) ?? {};
      // OAuth only for a server the user gave no credentials: theirs are the answer otherwise.
      const oauthStore = this.options.stores.oauth?.(entry.config.id);
      // Discovery and new addresses only while the user is at the settings page; the connection
      // stays, and from then on reaches only the server and what the sign-in found.
      const mode: McpReachMode = { interactive };
      const provider = this.options.oauth && oauthStore && !Object.keys(headers).length ? new McpOAuthProvider(oauthStore, this.options.oauth.redirectUrl, mode) : undefined;
      const network = this.options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => fetch(input, init));
      const guarded = guardedFetch(network, {
        serverUrl: entry.config.url,
        mode,
        allowedOrigins: () => entry.config.allowedOrigins ?? [],
        knownUrls: async () => {
          const token = await provider?.tokenEndpoint();
          return token ? [token] : [];
        },
        probe: this.options.probe,
      });
      let connection: McpConnection | undefined;
      try {
        connection = await McpConnection.open({
          url: entry.config.url,
          headers,
          fetch: guarded,
          refusals: guarded.refusals,
          ...(provider ? { oauth: { provider, ...(interactive ? { signIn: (url: URL) => this.options.oauth!.signIn(url) } : {}) } } : {}),
          onToolsChanged: () => {
            if (entry.connection === connection && connection) void this.refreshTools(entry, connection);
          },
          onLost: (error) => {
            if (entry.connection !== connection) return;
            entry.connection = undefined;
            entry.status = 'error';
            setError(entry, said('mcp.errors.lost', { detail: oneLine(error.message, 200) }));
            this.changed();
          },
        });
        const tools = await connection.listTools();
        if (this.entries.get(entry.config.id) !== entry) {
          await connection.close();
          throw new Error('The server was removed.');
        }
        entry.connection = connection;
        entry.transport = connection.transport;
        entry.signedIn = provider ? await provider.signedIn() : undefined;
        entry.needsSignIn = undefined;
        entry.localAsk = undefined;
        entry.status = 'connected';
        entry.connectedAt = Date.now();
        setError(entry, undefined);
        await this.applyTools(entry, tools);
        return connection;
      } catch (error) {
        await connection?.close();
        const failure = worded(error, entry.config.url);
        entry.needsSignIn = Boolean(provider && /needs you to sign in/.test(failure.message));
        // Only the settings page may allow an address: a run's refusal is only said.
        entry.localAsk = interactive && failure.localOrigin ? failure.localOrigin : entry.localAsk;
        entry.status = 'error';
        setError(entry, failure.said);
        this.changed();
        throw failure;
      } finally {
        mode.interactive = false;
        entry.connecting = undefined;
      }
    })();
    entry.connecting = attempt;
    return attempt;
  }

  private async refreshTools(entry: Entry, connection: McpConnection): Promise<void> {
    try {
      const tools = await connection.listTools();
      if (entry.connection === connection) await this.applyTools(entry, tools);
    } catch (error) {
      setError(entry, said('mcp.errors.relistFailed', { detail: oneLine((error as Error).message, 200) }));
      this.changed();
    }
  }

  private async applyTools(entry: Entry, tools: Tool[]): Promise<void> {
    entry.config.tools = tools.map(cacheTool);
    this.register(entry);
    await this.persist();
    this.changed();
  }

  /** (Re)registers the server's plugin with its current tools; a server without tools has none. */
  private register(entry: Entry): void {
    entry.disposePlugin?.();
    entry.disposePlugin = undefined;
    const { config } = entry;
    const others = new Set([...this.entries.values()].flatMap((e) => (e === entry ? [] : [...e.names.values()])));
    entry.names = nameTools(config.slug, config.tools.map((t) => t.name), entry.names, others);
    const label = labelOf(config);
    const { tools, notOffered } = serverTools(config, entry.names, (toolName, input, signal) => this.call(config.id, toolName, input, signal));
    if (!tools.length) {
      if (notOffered) setError(entry, notOffered);
      return;
    }
    const plugin: Plugin = {
      id: serverPluginId(config.id),
      source: 'remote',
      parentId: this.options.parentId,
      name: `MCP: ${label}`,
      description: `Tools of the MCP server at ${config.url}`,
      tools,
    };
    try {
      entry.disposePlugin = this.options.registry.register(plugin);
      if (notOffered) setError(entry, notOffered);
    } catch (error) {
      setError(entry, said('mcp.errors.toolsRefused', { detail: (error as Error).message }));
    }
  }

  /** Runs one tool of a server, connecting first when needed (after a restart, after a loss). */
  async call(id: string, toolName: string, args: Record<string, unknown>, signal: AbortSignal): Promise<ReturnType<typeof mapCallResult>> {
    const entry = this.entries.get(id);
    if (!entry) throw new Error(`The MCP server of this tool was removed from the settings; its tool "${toolName}" is gone.`);
    const label = labelOf(entry.config);
    let connection: McpConnection;
    try {
      connection = await raceAbort(this.connect(entry), signal);
    } catch (error) {
      if (signal.aborted) throw error;
      // A connection error can carry what the server answered (an HTTP body): its words, enveloped.
      throw new Error(`The MCP server "${label}" cannot be used now. What was said: ${untrusted(`connection error of the MCP server "${label}" (${entry.config.url})`, (error as Error).message)}`);
    }
    let result;
    try {
      result = await connection.callTool(toolName, args, signal);
    } catch (error) {
      if (signal.aborted) throw error;
      const message = (error as Error).message ?? String(error);
      // A JSON-RPC error is the server's answer; anything else (a network error) may mean it is gone.
      if (!connection.isServerAnswer(error)) await connection.check();
      // The server's words (a JSON-RPC error's message, an HTTP body the SDK quotes): enveloped.
      const said = untrusted(`error from the MCP server "${label}" (${entry.config.url}) calling "${toolName}"`, oneLine(message, 2000));
      if (!connection.alive) {
        throw new Error(`The MCP server "${label}" (${entry.config.url}) went away while running "${toolName}". The call did not finish; tell the user the server is not reachable. What was said: ${said}`);
      }
      throw new Error(`The MCP server "${label}" could not run "${toolName}". What it said: ${said}`);
    }
    return mapCallResult(result, { server: label, origin: serverOrigin(entry.config), tool: toolName });
  }

  // ——— Helpers ———

  private enabled(entry: Entry): boolean {
    return this.options.registry.isEnabled(serverPluginId(entry.config.id));
  }

  private entry(id: string): Entry {
    const entry = this.entries.get(id);
    if (!entry) throw new McpSettingsError('mcp.errors.gone');
    return entry;
  }

  private persist(): Promise<void> {
    const list = [...this.entries.values()].map((e) => structuredClone(e.config));
    this.saving = this.saving.catch(() => undefined).then(() => this.options.stores.save(list));
    return this.saving;
  }

  private changed(): void {
    this.switches = [...this.entries.values()].map((e) => (this.enabled(e) ? '1' : '0')).join('');
    this.options.onChange?.();
  }
}

/** The server's last error, in English (the model, logs) and as words for the settings page. */
function setError(entry: Entry, words: Said | undefined): void {
  entry.lastError = words ? english(words) : undefined;
  entry.lastErrorSaid = words;
}

function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason ?? new Error('aborted'));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason ?? new Error('aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
