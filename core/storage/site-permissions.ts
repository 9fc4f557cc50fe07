import { storage } from 'wxt/utils/storage';
import type { SitePermission } from '@/core/page-tools/types';

/**
 * The sites whose page tools the user allowed always, or never, by origin. "Allow once" is not
 * stored: it lasts as long as the page it was given for. Not a secret (content scripts could read
 * storage.local): it only says which sites may offer tools.
 */
export const sitePermissions = storage.defineItem<Record<string, SitePermission>>('local:sitePermissions', {
  fallback: {},
  version: 1,
});
