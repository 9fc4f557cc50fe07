import { defineStore } from 'pinia';
import { ref } from 'vue';
import { sendMessage } from '@/core/messaging/protocol';
import { subscribeTo } from '@/core/ui/events';
import './protocol';
import type { AddMcpServerInput, McpServerView } from './types';

/** The options page's view of the MCP servers; the background owns them and their credentials. */
export const useMcpStore = defineStore('mcp', () => {
  const servers = ref<McpServerView[] | null>(null);
  let unsubscribe: (() => void) | undefined;

  async function load(): Promise<void> {
    servers.value = await sendMessage('listMcpServers');
  }

  /** Loads and follows the background's changes (connections, tool lists) until `dispose`. */
  async function init(): Promise<void> {
    unsubscribe ??= subscribeTo(
      'mcp-servers',
      (event) => {
        servers.value = event.servers;
      },
      () => void load(),
    );
    await load();
  }

  function dispose(): void {
    unsubscribe?.();
    unsubscribe = undefined;
  }

  async function add(input: AddMcpServerInput): Promise<void> {
    servers.value = await sendMessage('addMcpServer', input);
  }
  async function setCredentials(id: string, bearerToken: string, headers: string): Promise<void> {
    servers.value = await sendMessage('setMcpServerCredentials', { id, bearerToken, headers });
  }
  async function reconnect(id: string): Promise<void> {
    servers.value = await sendMessage('reconnectMcpServer', { id });
  }
  async function allowOrigin(id: string, origin: string): Promise<void> {
    servers.value = await sendMessage('allowMcpServerOrigin', { id, origin });
  }
  async function setEnabled(id: string, enabled: boolean): Promise<void> {
    servers.value = await sendMessage('setMcpServerEnabled', { id, enabled });
  }
  /** Confirms the address of a server that came from a settings file. */
  async function confirm(id: string): Promise<void> {
    servers.value = await sendMessage('confirmMcpServer', { id });
  }
  async function remove(id: string): Promise<void> {
    servers.value = await sendMessage('removeMcpServer', { id });
  }

  return { servers, init, dispose, load, add, setCredentials, reconnect, allowOrigin, setEnabled, confirm, remove };
});
