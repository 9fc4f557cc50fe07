import { boolean } from 'zod/mini';
import { defineSetting } from '@/core/storage/setting';

/**
 * "Trusted input (Chrome)" (Settings → Page actions): clicks, keys and text through Chrome's
 * debugger (`trusted-input.ts`). Off by default. Not in the settings file: the choice belongs to
 * this browser (a file from Firefox, or from a person who trusts sites differently, must not turn
 * on the debugger here).
 */
export const trustedInputSetting = defineSetting<boolean>('local:pageActions.trustedInput', {
  fallback: false,
  schema: boolean(),
  version: 1,
});
