import type { PageReply, PageRequest } from '../protocol';

/**
 * The page agent: installed once per document in the tab's isolated world
 * (`entrypoints/page-actions-agent.ts`), it answers the background's `PageRequest`s: the outline
 * (`outline.ts`), the actions (`act.ts`), the bar (`bar.ts`). Nothing of it is reachable from
 * the page's own scripts.
 */
export interface PageEnv {
  /** Tells the background a bar button was pressed (a trusted click). */
  barButton(button: 'stop' | 'take-over' | 'resume'): void;
  /** A word of the plugin's locale (`pageActions.bar.*`), in the browser's language. */
  words(key: string): string;
}

export interface PageAgent {
  handle(request: PageRequest): Promise<PageReply>;
}

/** Built by the `act` work (placeholder in the skeleton). */
export function installPageAgent(_env: PageEnv): PageAgent {
  throw new Error('not built yet');
}
