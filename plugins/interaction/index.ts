import type { FromSchema } from 'json-schema-to-ts';
import { definePlugin } from '@/core/plugin';
import { defineTool } from '@/core/registry/registry';
import './protocol';
import { ASK_TIMEOUT_MS, QuestionDesk, type AskOutcome } from './questions';
import { interactionSchemas } from './schemas';

/** The built-in `interaction` plugin: `ask_user`, a question shown in the sidebar. */
export const interactionPlugin = definePlugin<QuestionDesk>({
  id: 'interaction',
  name: 'Ask the user',
  description: 'Lets the agent ask you a question in the sidebar, as free text or a choice, and wait for your answer.',
  tools: [
    defineTool<FromSchema<typeof interactionSchemas.ask_user>, AskOutcome, QuestionDesk>({
      name: 'ask_user',
      description:
        'Ask the user a question in the sidebar and wait for the answer (null after 5 minutes or if skipped), only when you cannot go on without it.',
      inputSchema: interactionSchemas.ask_user,
      // The answer is the user's own words, like their messages: not a private read.
      annotations: { readOnly: true, destructive: false, openWorld: false, interactive: true, privateData: false },
      // The desk answers with {answer: null, reason: "timeout"} at 5 minutes; the registry's
      // own limit only guards against a desk that never settles.
      timeoutMs: ASK_TIMEOUT_MS + 30_000,
      execute({ question, options, multiple }, { signal, conversationId, toolCallId, service }) {
        return service.ask({ question, options, multiple, conversationId, toolCallId }, signal);
      },
    }),
  ],
  setup(ctx) {
    const desk = new QuestionDesk();
    const stop = desk.onChange((change) => {
      ctx.broadcast(
        change.type === 'asked'
          ? { type: 'question', question: change.question }
          : { type: 'question-closed', id: change.id, conversationId: change.conversationId },
      );
      ctx.setBadgeCount(desk.list().length);
    });
    ctx.retained('waitingQuestions', () => desk.list().length);
    ctx.handle('listQuestions', () => desk.list());
    ctx.handle('answerQuestion', ({ id, answer }) => desk.answer(id, answer));
    ctx.conversations.onDeleted((id) => desk.withdraw(id));
    return { service: desk, dispose: stop };
  },
});
