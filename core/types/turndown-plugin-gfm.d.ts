declare module 'turndown-plugin-gfm' {
  import type TurndownService from 'turndown';
  /** The plugin ships no types; these are the four rule sets it exports. */
  export const gfm: TurndownService.Plugin;
  export const highlightedCodeBlock: TurndownService.Plugin;
  export const strikethrough: TurndownService.Plugin;
  export const tables: TurndownService.Plugin;
  export const taskListItems: TurndownService.Plugin;
}
