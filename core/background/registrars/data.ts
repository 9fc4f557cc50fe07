import { browser } from 'wxt/browser';
import { parseArchive } from '@/core/data/archive';
import { exportSettingsFile } from '@/core/data/settings-file';
import { SettingsImports } from '@/core/data/settings-import';
import { clearDatabase, exportConversations, importArchive } from '@/core/data/store';
import type { BackgroundContext } from '../context';
import { disposeAll } from './registrar';

/** The user's data (Settings → Data, the sidebar's Export): archives, the settings file, Delete all data. */
export function registerData(ctx: BackgroundContext): () => void {
  const { db, store, registry, gate, hub, handle } = ctx;
  // Import in two steps: what the file would change (nothing written), then exactly that.
  const settingsImports = new SettingsImports(db, { plugins: ctx.plugins, pluginName: (id) => registry.getPlugin(id)?.name });
  return disposeAll(
    handle('exportConversations', ({ conversationId }) => exportConversations(store, conversationId)),
    handle('importConversations', async ({ text }) => {
      const archive = parseArchive(text);
      const { added, skipped } = await importArchive(db, archive);
      // A large import is one reload of the pages' lists, not one event per conversation.
      if (added.length > 50) hub.broadcast({ type: 'data-reset', reason: 'imported' });
      else for (const conversation of added) hub.broadcast({ type: 'conversation', conversation });
      return { added: added.length, skipped };
    }),
    handle('exportSettings', ({ includeKeys }) => exportSettingsFile(db, includeKeys)),
    handle('previewSettingsImport', ({ text }) => settingsImports.preview(text)),
    handle('cancelSettingsImport', ({ token }) => settingsImports.cancel(token)),
    handle('applySettingsImport', async ({ token, text }) => {
      const applied = await settingsImports.apply(token, text);
      await registry.loadState();
      await ctx.settingsImported.run();
      hub.broadcast({ type: 'data-reset', reason: 'imported' });
      return { applied };
    }),
    handle('deleteAllData', async () => {
      // Every run stops and every plugin forgets every conversation first (questions, task lists),
      // then drops what it keeps elsewhere (files); the core empties its database and storage.
      for (const { id } of await store.list()) await ctx.forgetConversation(id);
      gate.reset();
      await ctx.allDataDeleted.run();
      await clearDatabase(db);
      store.reset();
      await browser.storage.local.clear();
      await browser.storage.session?.clear().catch(() => undefined);
      await registry.loadState();
      ctx.badge.set('core:approvals', 0);
      hub.broadcast({ type: 'data-reset', reason: 'deleted' });
    }),
  );
}
