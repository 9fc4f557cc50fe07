/**
 * The one rule for secrets tied to an address: a provider profile's API key, an MCP server's
 * bearer token, headers and OAuth tokens. A secret saved for one address goes only to an address
 * of the same origin (scheme, host and port). Whatever moves such a thing to another origin — the
 * provider form's Save, a settings file's import — drops the saved secret: the user gives it again,
 * or the file that moves it carries its own. Used by `ProviderService` (save, model lists) and by
 * the settings file's import (`core/data/settings-import.ts`).
 */
import { sameOrigin } from './origin';

/** Whether a secret saved for `savedFor` may go to `now`: both http(s), same origin. */
export function keepsSecret(savedFor: string | undefined, now: string | undefined): boolean {
  return sameOrigin(savedFor, now);
}
