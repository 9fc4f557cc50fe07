import { originOf } from './origin';

/**
 * Addresses the user set up themselves: the model providers' (Settings → Model provider) and any a
 * plugin adds for a service the user configured (a server address typed in its settings). Typing
 * the address in the extension's own settings is the user's consent to reach it, so a call to one
 * of them is not asked about as "your own network" and tools may request it even on the local
 * network. Pages and the model cannot add to it: sources are registered in the background only.
 */
export class ConfiguredOrigins {
  private readonly sources: Array<() => Promise<string[]> | string[]> = [];

  /** Adds a source of origins (read each time, so a changed setting counts at once). */
  add(source: () => Promise<string[]> | string[]): void {
    this.sources.push(source);
  }

  /** Every configured origin now; a source that fails counts as none. */
  async all(): Promise<Set<string>> {
    const lists = await Promise.all(this.sources.map(async (source) => {
      try {
        return await source();
      } catch {
        return [];
      }
    }));
    return new Set(lists.flat());
  }

  async has(url: string | URL): Promise<boolean> {
    const origin = originOf(url);
    return origin !== '' && (await this.all()).has(origin);
  }
}
