import type { FromSchema } from 'json-schema-to-ts';
import { ASK_TIMEOUT_MS, type AskOutcome, type QuestionDesk } from '@/core/background/questions';
import { definePlugin, defineTool } from '@/core/registry/registry';
import { interactionSchemas } from './schemas';

/** The built-in `interaction` plugin: `ask_user`, a question shown in the sidebar. */
export function createInteractionPlugin(desk: QuestionDesk) {
  return definePlugin({
    id: 'interaction',
    source: 'builtin',
    name: 'Ask the user',
    description: 'Lets the agent ask you a question in the sidebar, as free text or a choice, and wait for your answer.',
    tools: [
      defineTool<FromSchema<typeof interactionSchemas.ask_user>, AskOutcome>({
        name: 'ask_user',
        description:
          'Ask the user a question in the sidebar and wait for the answer. With options it is a choice (several answers with multiple: true), else free text. Use it when you cannot go on without the user\'s decision or information; do not ask what you can find out yourself. Returns {answer}; {answer: null, reason: "timeout"} after 5 minutes without an answer, or reason "skipped" when the user declined to answer.',
        inputSchema: interactionSchemas.ask_user,
        // The desk answers with {answer: null, reason: "timeout"} at 5 minutes; the registry's
        // own limit only guards against a desk that never settles.
        timeoutMs: ASK_TIMEOUT_MS + 30_000,
        execute({ question, options, multiple }, { signal, conversationId, toolCallId }) {
          return desk.ask({ question, options, multiple, conversationId, toolCallId }, signal);
        },
      }),
    ],
  });
}
