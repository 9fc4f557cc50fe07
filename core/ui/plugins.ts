import type { Component } from 'vue';

/** A page of the settings, listed by group in the navigation. */
export interface SettingsSection {
  id: string;
  /** 'Agent', 'Privacy' or 'Data'. */
  group: string;
  /** Its name: a function (`() => t('…')`) follows the page's language; a plain string is shown as it is. */
  title: string | (() => string);
  /**
   * A plugin's section should be `defineAsyncComponent(() => import(…))`: every page gets the
   * plugins' contributions, and only the options page needs this one.
   */
  component: Component;
  /** Place within its group (smaller first); the core's own sections use 0, 100, 200. */
  order?: number;
}

/** How the sidebar shows calls of one tool, instead of the generic tool card. */
export interface ToolCardContribution {
  /** Gets the props `call` (ToolCall), `result` (ToolMessage | undefined) and `runActive` (boolean). */
  component: Component;
  /** Folds a live `tool-activity` event into `result.activity` (the same reducer as the tool's). */
  reduceActivity?: (record: unknown, event: unknown) => unknown;
}

/** One suggestion of the message box (a skill after `/`): picking it puts `value` in the box. */
export interface ComposerSuggestion {
  value: string;
  /** What the list shows (e.g. `/weekly-report`). */
  label: string;
  /** A second line, shown smaller (the skill's description). */
  detail?: string;
}

/** One item of the open conversation's menu (`PluginUi.conversationMenu`). */
export interface ConversationMenuItem {
  id: string;
  /** Its name for this conversation (a function: it follows the page's language and the plugin's state). */
  label: (conversationId: string) => string;
  /** A switch's state for this conversation (a `menuitemcheckbox`); undefined: a plain item. */
  checked?: (conversationId: string) => boolean | undefined;
  run(conversationId: string): void;
}

/**
 * What a plugin adds to the extension's pages, declared in `plugins/<id>/ui.ts` and listed in
 * `plugins/ui.ts`. The entrypoints hand the list to the pages (`providePluginUi`); the core's
 * components render what they find and name no plugin.
 */
export interface PluginUi {
  /**
   * The plugin's id (the same as its background value's). Every component below should be
   * `defineAsyncComponent(() => import(…))`: each page gets every plugin's contributions, and the
   * sidebar's first load carries none of them (each loads when first shown).
   */
  id: string;
  settings?: SettingsSection[];
  /** Shown in the sidebar under its header (`top`) or above the message box (`bottom`). */
  chatPanels?: Array<{ id: string; place: 'top' | 'bottom'; component: Component }>;
  /** By tool name. */
  toolCards?: Record<string, ToolCardContribution>;
  /** Shown in the toolbar popup, under its buttons. */
  popup?: Array<{ id: string; component: Component }>;
  /**
   * Shown under an answer that ends a finished run, beside its Usage · Trace row. Gets the props
   * `message` (AssistantMessage) and `conversationId` (string).
   */
  messageActions?: Array<{ id: string; component: Component }>;
  /** Items of the open conversation's menu in the sidebar's header. */
  conversationMenu?: ConversationMenuItem[];
  /**
   * The message box's suggestions for what is typed so far (shown while the box has focus; the
   * arrow keys move, Enter or Tab picks, Escape closes). Return [] for none.
   */
  composer?: {
    /** The name of this plugin's group of suggestions (the listbox's name, e.g. "Skills"); the core's "Suggestions" when absent. */
    label?: () => string;
    suggest(text: string): ComposerSuggestion[] | Promise<ComposerSuggestion[]>;
  };
}

let installed: readonly PluginUi[] = [];

/** Called once by an entrypoint before it mounts its page. */
export function providePluginUi(list: readonly PluginUi[]): void {
  installed = list;
}

/** The plugins' contributions to this page. */
export function pluginUi(): readonly PluginUi[] {
  return installed;
}

export function toolCard(name: string): ToolCardContribution | undefined {
  for (const ui of installed) {
    const card = ui.toolCards?.[name];
    if (card) return card;
  }
  return undefined;
}
