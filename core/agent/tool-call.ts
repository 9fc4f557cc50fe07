import { noGate } from '@/core/approvals/no-gate';
import { capError, errorMessage } from '@/core/registry/registry';
import type { GatedCall, ReachHow, ToolResult } from '@/core/registry/types';
import type { ToolCall, ToolMessage } from '@/core/storage/db';
import type { LoopOptions } from './loop-options';
import type { CallSeen } from './loop-guard';

/** How often a tool message with live activity is written while its tool works. */
const ACTIVITY_SAVE_INTERVAL_MS = 500;

/**
 * Runs one tool call: its input checked, then the loop's gate asked (a loop given no gate asks
 * `noGate`, which refuses every call the user would have to allow), then the registry; its live
 * activity (if any) is kept on its tool message.
 */
export async function runToolCall(options: LoopOptions, call: ToolCall, toolMessage: ToolMessage, seen?: Partial<CallSeen>): Promise<ToolResult> {
  const { registry, transcript, signal } = options;
  if (call.invalid) {
    // Capped like the registry's errors: the model's own arguments can be huge.
    return { ok: false, code: 'invalid_input', error: capError(`Invalid parameters for tool ${call.name}: ${call.invalid}.`) };
  }
  let input = call.input;
  if (options.checkCall) {
    try {
      input = options.checkCall(call.name, call.input);
    } catch (error) {
      return { ok: false, code: 'invalid_input', error: capError(errorMessage(error)) };
    }
  }
  const conversationId = options.toolContext?.conversationId ?? transcript.conversationId;
  // The user's say-so, for the main agent and sub-agents alike; asked only about calls that can run.
  const gate = options.gate ?? noGate;
  // Checked and made ready once (an address parsed as the browser will): the gate and the tool get the same value.
  const admitted = registry.admit(call.name, input, options.allow);
  if ('refused' in admitted) return admitted.refused;
  input = admitted.input;
  const spec = registry.describe(call.name)!;
  // Judged by what this call does (a sandbox script reaches no page), where the tool says.
  const annotations = spec.annotations.forCall ? await registry.callAnnotations(call.name, input, options.toolContext?.tabId) : spec.annotations;
  const target = spec.annotations.target ? await registry.callTarget(call.name, input, options.toolContext?.tabId) : undefined;
  // What the loop guard needs: did it read a page, or act (judged like the gate, by this call's annotations).
  const judged = annotations ?? spec.annotations;
  if (seen) Object.assign(seen, { readsPage: Boolean(judged.readOnly && judged.pages), acting: !judged.readOnly, tab: target?.tabId ?? options.toolContext?.tabId });
  const gated: GatedCall = {
    name: call.name,
    input,
    spec: annotations === spec.annotations || !annotations ? spec : { ...spec, annotations },
    conversationId,
    toolCallId: call.id,
    tabId: options.toolContext?.tabId,
    agent: options.toolContext?.agentLabel,
    target,
    // The card's words, for the tab the gate resolves (the loop binds the plugin's service).
    ...(spec.annotations.describe ? { words: (tabId: number | undefined) => registry.callWords(call.name, input, tabId) } : {}),
  };
  const verdict = await gate.check(gated, signal);
  if (!verdict.ok) return verdict.result;
  const note = verdict.note;
  // An address on the user's own network the user allowed for this call (the gate asked).
  const approvedUrl = verdict.approvedUrl;
  // A tab's tool that named no tab runs on the tab the approval card showed.
  const pinnedTab = verdict.tabId !== undefined && options.toolContext?.tabId === undefined ? verdict.tabId : undefined;
  if (seen && pinnedTab !== undefined) seen.tab ??= pinnedTab;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let saving: Promise<unknown> = Promise.resolve();
  const reduce = registry.activityReducer(call.name);
  const reportActivity = reduce && ((event: unknown) => {
    toolMessage.activity = reduce(toolMessage.activity, event);
    transcript.toolActivity?.(toolMessage, event);
    timer ??= setTimeout(() => {
      timer = undefined;
      saving = saving.then(() => transcript.save([toolMessage])).catch(() => undefined);
    }, ACTIVITY_SAVE_INTERVAL_MS);
  });
  try {
    const result = await registry.invoke(call.name, input, {
      signal,
      allow: options.allow,
      prepared: true,
      context: {
        ...options.toolContext,
        conversationId,
        toolCallId: call.id,
        reportActivity,
        ...(approvedUrl ? { approvedUrl } : {}),
        ...(pinnedTab !== undefined ? { tabId: pinnedTab } : {}),
        // Addresses the call reaches on its way (redirect hops, a server on the user's network) go to the same gate.
        ...(gate.reach ? { reach: (url: string, how: ReachHow, callSignal?: AbortSignal) => gate.reach!(gated, note, url, how, callSignal ?? signal) } : {}),
      },
    });
    gate.record?.(gated, note, result);
    // The gate's own line for the model (it waited while the user had the tab).
    return verdict.notice ? { ...result, notice: [verdict.notice, result.notice].filter(Boolean).join('\n\n') } : result;
  } finally {
    clearTimeout(timer);
    await saving;
  }
}
