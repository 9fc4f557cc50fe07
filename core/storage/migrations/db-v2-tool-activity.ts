import type { DbStep } from './db-step';

/**
 * v2: a tool message's live activity is generic. v1 kept a sub-agent's transcript in `subAgent`;
 * the core no longer knows what a sub-agent is, so it becomes `activity` (the same record, which
 * the sub-agents plugin's reducer builds and its tool card reads).
 */
export function migrateToolMessageV2(message: Record<string, unknown>): Record<string, unknown> {
  if (message.role !== 'tool' || !('subAgent' in message)) return message;
  const { subAgent, ...rest } = message;
  return subAgent === undefined ? rest : { ...rest, activity: subAgent };
}

export const dbV2: DbStep = {
  version: 2,
  stores: {},
  async upgrade(tx) {
    await tx
      .table('messages')
      .where('role')
      .equals('tool')
      .modify((message: Record<string, unknown>, ref: { value: Record<string, unknown> }) => {
        if ('subAgent' in message) ref.value = migrateToolMessageV2(message);
      });
  },
};
