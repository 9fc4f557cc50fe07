import type { PermissionStore } from '@/core/approvals/gate';
import type { SidequestDb } from './db';

/** The approval gate's remembered choices in the core DB (`permissions`, schema v4). */
export function permissionStore(db: SidequestDb): PermissionStore {
  return {
    load: () => db.permissions.toArray(),
    put: async (permission) => {
      await db.permissions.put({ tool: permission.tool, site: permission.site, decision: permission.decision, at: permission.at });
    },
    remove: (tool, site) => db.permissions.delete([tool, site]),
  };
}
