import type { PermissionStore } from '@/core/approvals/gate';
import type { SidequestDb } from './db';

/** The approval gate's remembered choices in the core DB (`permissions`, schema v4). */
export function permissionStore(db: SidequestDb): PermissionStore {
  return {
    load: () => db.permissions.toArray(),
    put: async (permission) => {
      const { tool, site, decision, at, pin, description } = permission;
      await db.permissions.put({ tool, site, decision, at, ...(pin ? { pin, description: description ?? '' } : {}) });
    },
    remove: (tool, site) => db.permissions.delete([tool, site]),
  };
}
