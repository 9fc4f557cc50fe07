import type { Permission, PermissionStore } from './types';

const key = (tool: string, site: string) => `${tool}\n${site}`;

/**
 * The user's remembered choices (Always allow, Deny: a tool on a site), read once from their store
 * and kept in memory, so a call that needs no ask costs no storage read.
 */
export class RememberedChoices {
  private readonly remembered = new Map<string, Permission>();
  private loaded: Promise<void> | undefined;

  constructor(
    private readonly store: PermissionStore,
    /** Told the whole list after each change. */
    private readonly changed: (permissions: Permission[]) => void,
  ) {}

  /** Reads the remembered choices (once; later calls wait for the same read). */
  load(): Promise<void> {
    return (this.loaded ??= this.store.load().then((list) => {
      for (const p of list) this.remembered.set(key(p.tool, p.site), p);
    }));
  }

  get(tool: string, site: string): Permission | undefined {
    return this.remembered.get(key(tool, site));
  }

  /** Every remembered choice, by site then tool. */
  list(): Permission[] {
    return [...this.remembered.values()].sort((a, b) => a.site.localeCompare(b.site) || a.tool.localeCompare(b.tool));
  }

  /** Remembers a choice (kept in memory even if the write fails). */
  async remember(permission: Permission): Promise<void> {
    this.remembered.set(key(permission.tool, permission.site), permission);
    try {
      await this.store.put(permission);
    } catch (error) {
      console.error('[sidequest] could not save a permission', error);
    }
    this.changed(this.list());
  }

  async revoke(tool: string, site: string): Promise<Permission[]> {
    await this.load();
    this.remembered.delete(key(tool, site));
    await this.store.remove(tool, site);
    this.changed(this.list());
    return this.list();
  }

  /** Forgets every choice (the caller empties the store); the next decision reads them again. */
  clear(): void {
    this.remembered.clear();
    this.loaded = undefined;
  }
}

/** The key of a tool on a site, for per-conversation maps. */
export const toolSiteKey = key;
