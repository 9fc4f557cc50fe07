import type { AssistantMessage, UserMessage } from '@/core/storage/db';

/**
 * The answers that end their run, by id: a run is the answers after one user message (as
 * `stores/chat.ts` counts its usage), and its last answer that is not a notice ends it. The run
 * still going (`running`: the conversation's last run) has not ended. The sidebar shows the
 * Usage · Trace row under these answers; under the other steps only on hover or focus.
 */
export function runEnds(messages: ReadonlyArray<UserMessage | AssistantMessage>, running: boolean): Set<string> {
  const ends = new Set<string>();
  let last: string | undefined;
  for (const m of messages) {
    if (m.role === 'user') {
      if (last) ends.add(last);
      last = undefined;
    } else if (!m.notice) last = m.id;
  }
  if (last && !running) ends.add(last);
  return ends;
}
