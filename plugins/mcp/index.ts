import { browser } from 'wxt/browser';
import { browserAddressProbe } from '@/core/net/address';
import { definePlugin } from '@/core/plugin';
import './protocol';
import type { OAuthState } from './oauth';
import { McpService } from './service';
import { credentialsName, mcpSettingsFile, oauthName, serversSchema } from './settings-file';
import type { McpServerConfig } from './types';

/**
 * OAuth sign-in through the browser (both have `identity.launchWebAuthFlow`, with the `identity`
 * permission): the authorization server sends the browser back to the extension's redirect URL.
 */
function browserOAuth(): { redirectUrl: string; signIn(url: URL): Promise<string> } | undefined {
  const identity = (browser as { identity?: typeof browser.identity }).identity;
  let redirectUrl: string;
  try {
    redirectUrl = identity?.launchWebAuthFlow ? identity.getRedirectURL() : '';
  } catch {
    redirectUrl = ''; // No identity API here (unit tests' fake browser): no OAuth.
  }
  if (!redirectUrl || !identity) return undefined;
  return {
    redirectUrl,
    async signIn(url) {
      const back = await identity.launchWebAuthFlow({ url: url.href, interactive: true });
      if (!back) throw new Error('The sign-in window was closed before it finished.');
      return back;
    },
  };
}

/**
 * The built-in `mcp` plugin: the user's remote MCP servers (Settings → Agent → MCP servers), each
 * one a plugin of its own in the registry (`mcp:<id>`), switchable, its tools namespaced
 * `mcp_<server>_<tool>` and passing the same approval gate as every tool. Switching this plugin off
 * switches every server off. It has no tools of its own.
 */
export const mcpPlugin = definePlugin<McpService>({
  id: 'mcp',
  name: 'MCP servers',
  description: 'Tools from the remote MCP servers you add in Settings → Agent → MCP servers; each server can be switched on or off there.',
  tools: [],
  settingsFile: mcpSettingsFile,
  setup(ctx) {
    const servers = ctx.storage.item('servers', { fallback: [] as McpServerConfig[], schema: serversSchema });
    const secret = (id: string) => ctx.storage.secret(credentialsName(id));
    const oauthSecret = (id: string) => ctx.storage.secret(oauthName(id));
    const service: McpService = new McpService({
      registry: ctx.registry,
      parentId: ctx.pluginId,
      stores: {
        load: () => servers.getValue(),
        save: (list) => servers.setValue(list),
        async getCredentials(id) {
          const raw = await secret(id).getValue();
          if (!raw) return undefined;
          try {
            return JSON.parse(raw) as Record<string, string>;
          } catch {
            return undefined;
          }
        },
        setCredentials: (id, headers) => secret(id).setValue(headers && Object.keys(headers).length ? JSON.stringify(headers) : undefined),
        oauth: (id) => ({
          async load() {
            const raw = await oauthSecret(id).getValue();
            try {
              return raw ? (JSON.parse(raw) as OAuthState) : undefined;
            } catch {
              return undefined;
            }
          },
          save: (state) => oauthSecret(id).setValue(state ? JSON.stringify(state) : undefined),
        }),
      },
      oauth: browserOAuth(),
      probe: browserAddressProbe(),
      onChange: () => ctx.broadcast({ type: 'mcp-servers', servers: service.views() }),
    });
    ctx.onStartup(() => service.start());
    ctx.retained('servers', () => service.retainedSizes().servers);
    ctx.retained('connections', () => service.retainedSizes().connections);
    ctx.onSettingsImported(() => service.reload());
    ctx.handle('listMcpServers', () => service.views());
    ctx.handle('addMcpServer', (data) => service.add(data));
    ctx.handle('reconnectMcpServer', ({ id }) => service.reconnect(id));
    ctx.handle('setMcpServerCredentials', ({ id, bearerToken, headers }) => service.setCredentials(id, { bearerToken, headers }));
    ctx.handle('allowMcpServerOrigin', ({ id, origin }) => service.allowOrigin(id, origin));
    ctx.handle('setMcpServerEnabled', ({ id, enabled }) => service.setEnabled(id, enabled));
    ctx.handle('confirmMcpServer', ({ id }) => service.confirm(id));
    ctx.handle('removeMcpServer', ({ id }) => service.remove(id));
    return { service, dispose: () => void service.dispose() };
  },
});
