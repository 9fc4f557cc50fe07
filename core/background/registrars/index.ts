import { registerApprovals } from './approvals';
import { registerBench } from './bench';
import { registerConversations } from './conversations';
import { registerData } from './data';
import { registerPlugins } from './plugins';
import { registerProviders } from './providers';
import type { Registrar } from './registrar';
import { registerRuns } from './runs';
import { registerUsage } from './usage';

export type { Registrar } from './registrar';

/**
 * The background's core features, in the order they start. Their start-up tasks (the remembered
 * permissions, the plugins', interrupted runs) then run side by side, and those marked `last`
 * after them (`BackgroundContext.onStartup`). A new feature is one file in this folder and one
 * line here.
 */
export const coreRegistrars: readonly Registrar[] = [
  registerConversations,
  registerApprovals,
  registerPlugins,
  registerRuns,
  registerProviders,
  registerData,
  registerUsage,
];

/** Registered after the core's in benchmark builds only. */
export const benchRegistrars: readonly Registrar[] = [registerBench];
