// The built-in plugins set up as the background sets them up (core/background/registrars/plugins.ts), on
// services a unit test can hold: wxt's fakeBrowser, opfs-mock for the workspace, fake-indexeddb for
// plugin storage. What is not given fails loudly (no model, no offscreen document), so a test says
// which of the real services it wants.
import { storageFactory } from 'opfs-mock';
import { vi } from 'vitest';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import { noGate } from '@/core/approvals/no-gate';
import type { PluginContext } from '@/core/plugin';
import { interpretedValidators } from '@/core/registry/interpreted-validator';
import { ToolRegistry } from '@/core/registry/registry';
import type { SidequestDb } from '@/core/storage/db';
import { pluginStorage } from '@/core/storage/plugin-data';
import { builtinPlugins } from '@/plugins';
import { withMove } from '@/tests/unit/helpers/opfs';
import { noConversationRuns } from '@/tests/unit/helpers/plugin-context';

export interface RealPluginsOptions {
  /** Where the plugins' storage lives (fake-indexeddb). */
  db: SidequestDb;
  /** Runs offscreen jobs (HTML → Markdown, the sandbox); default: fails. */
  offscreen?: PluginContext['offscreen'];
  /** The origins the user set up in settings (web_fetch may reach them on the local network). */
  configuredOrigins?: () => Promise<Set<string>>;
  /** Receives the plugins' live updates (a question asked, tasks changed). */
  broadcast?: PluginContext['broadcast'];
  /** Collects the plugins' message handlers by name, to answer as the sidebar would. */
  handlers?: Map<string, (data: never) => unknown>;
}

/**
 * Gives the test an in-memory OPFS as the browsers give it (`navigator.storage.getDirectory()`,
 * with `FileSystemFileHandle.move`); returns its root, unwrapped.
 */
export async function useOpfsMock(): Promise<FileSystemDirectoryHandle> {
  const mock = storageFactory();
  const root = await mock.getDirectory();
  const storage = { getDirectory: async () => withMove(root) } as unknown as StorageManager;
  if (!('navigator' in globalThis) || !globalThis.navigator) vi.stubGlobal('navigator', { storage });
  else Object.defineProperty(globalThis.navigator, 'storage', { value: storage, configurable: true });
  return root;
}

/** A registry holding every built-in plugin (`plugins/index.ts`), each set up with a real `PluginContext`. */
export function realPluginRegistry({ db, offscreen, configuredOrigins, broadcast, handlers }: RealPluginsOptions): ToolRegistry {
  const registry = new ToolRegistry(interpretedValidators);
  // fakeBrowser has no ports: page tools listen for none here (the e2e tests send them).
  vi.spyOn(fakeBrowser.runtime.onConnect, 'addListener').mockImplementation(() => undefined);
  for (const plugin of builtinPlugins) {
    const ctx: PluginContext = {
      pluginId: plugin.id,
      handle: (type, handler) => void handlers?.set(type, handler as (data: never) => unknown),
      onDeleteAll: () => undefined,
      onSettingsImported: () => undefined,
      broadcast: broadcast ?? (() => undefined),
      storage: pluginStorage(db, plugin.id),
      getModelClient: async () => {
        throw new Error('No model in this test.');
      },
      getMaxSteps: async () => 3,
      configuredOrigins: configuredOrigins ?? (async () => new Set<string>()),
      addConfiguredOrigins: () => undefined,
      registry,
      // No user to ask here: a sub-agent's loop refuses what the gate would ask about.
      gate: noGate,
      holdTabs: () => undefined,
      instructions: () => undefined,
      offscreen:
        offscreen ??
        ((async () => {
          throw new Error('No offscreen document in this test.');
        }) as PluginContext['offscreen']),
      onStartup: () => undefined,
      conversations: {
        onDeleted: () => undefined,
        tabsInPlay: async () => new Set<number>(),
        onRunEnd: () => undefined,
        stop: () => false,
        ...noConversationRuns(),
      },
      approvals: {
        onAsk: () => undefined,
        grantForRun: () => {
          throw new Error('No runs in this test.');
        },
        withdrawGrant: () => undefined,
        actWithoutAskingByDefault: () => undefined,
      },
      showConversation: async () => undefined,
      setBadgeCount: () => undefined,
      retained: () => undefined,
    };
    const setup = plugin.setup?.(ctx);
    registry.register({ id: plugin.id, source: 'builtin', name: plugin.name, description: plugin.description, tools: plugin.tools }, setup?.service);
  }
  return registry;
}

/** Every built-in tool's name, from the real plugin list. */
export function builtinToolNames(): string[] {
  return builtinPlugins.flatMap((p) => p.tools.map((t) => t.name)).sort();
}
