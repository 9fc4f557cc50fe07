import type { TrustedCommand } from '../cdp-input';
import type { ActContext } from './act';
import { barLetsThrough } from './bar';
import type { Modifiers } from './input';

/**
 * Trusted input (Chrome, the "Trusted input" setting): the page agent checks and aims as always
 * (`ensureActionable`, the cover check, the hit-tested point), then asks the background to deliver
 * the click, the keys or the text through `chrome.debugger` instead of dispatching synthetic
 * events, so they reach the page with `isTrusted: true`. The background sends only `Input.*`
 * commands, only to this tab, only while the approved action runs, and only while the tab still
 * shows the approved site (`trusted-input.ts`). Meanwhile the acting bar lets the events through
 * and ignores them (`barLetsThrough`): the agent's clicks never press its Stop or Take over.
 */

/** Delivers one command through the background; rejects with the background's words. */
export type TrustedSender = (command: TrustedCommand) => Promise<void>;

/** The names of the held modifiers, as the trusted click takes them. */
export function modifierNames(mods: Modifiers): string[] {
  return [mods.ctrlKey && 'Control', mods.altKey && 'Alt', mods.metaKey && 'Meta', mods.shiftKey && 'Shift'].filter((name): name is string => Boolean(name));
}

/** Sends `command` through the context's trusted sender, with the acting bar letting it through. */
export function deliver(ctx: ActContext, command: TrustedCommand): Promise<void> {
  const send = ctx.trusted;
  if (!send) return Promise.reject(new Error('Trusted input is not on for this action.'));
  return barLetsThrough(() => send(command));
}
