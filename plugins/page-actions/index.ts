import { definePlugin } from '@/core/plugin';
import { actionTools } from './actions';
import { controlTools } from './control';
import { pointerTools } from './pointer-tools';
import { formsTools } from './forms-tools';
import './protocol';
import { setupPageActions, type PageActionsService } from './service';

/**
 * The built-in `page-actions` plugin: on pages without tools of their own, the agent reads an
 * outline of the page with element references and acts like a person (click, type, choose,
 * press keys, scroll, navigate, wait, look), each action through the approval gate with a card in
 * words, while a bar in the tab lets the user stop it or take over.
 */
export const pageActionsPlugin = definePlugin<PageActionsService>({
  id: 'page-actions',
  name: 'Page actions',
  description: 'Reads a page as an outline and acts on it like a person: click, type, choose, scroll, navigate, screenshots. A bar in the tab lets you stop or take over.',
  tools: [...actionTools, ...pointerTools, ...formsTools, ...controlTools],
  setup: (ctx) => setupPageActions(ctx),
});
