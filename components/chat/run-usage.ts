import type { InjectionKey } from 'vue';
import type { RunUsage } from '@/stores/chat';

/**
 * The totals of the run an answer belongs to, by the answer's id, given by the chat view. The
 * Usage panel reads them when it is open, so a step that changes its run's totals renders no
 * answer of the run (as a prop, the new totals rendered every answer of the run on every step).
 * Without a chat view above: none.
 */
export const RUN_USAGE: InjectionKey<(messageId: string) => RunUsage | undefined> = Symbol('run usage');
