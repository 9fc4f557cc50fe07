import type { GatedCall, ToolGate, ToolResult } from '@/core/registry/types';
import { decide, type AskReason } from './policy';

/** Why a call needs the user, in the model's words. */
const WHY: Record<AskReason, string> = {
  read: 'it reads a tab other than the one the user is looking at',
  claimed: 'it is a page\'s tool whose harmlessness is only claimed',
  acting: 'it changes something on a tab or site',
  destructive: 'it may delete or overwrite what cannot be got back',
  outbound: 'it can send data out to the web',
  local: 'it reaches the user\'s own network',
  sensitive: 'it may pay, delete, send, or type a password',
  unattended: 'it was not allowed ahead for this scheduled run',
  instructs: 'what it keeps becomes the user\'s words in later conversations',
};

/**
 * The gate of an agent loop that was given none (a test, a new caller): there is nobody to ask,
 * so a call runs only if the approval policy lets it through without the user's word whatever
 * was read before: a call that is not open-world (no data flow is tracked here, so anything that
 * can reach the web might carry what was read) and that `decide` allows with nothing remembered
 * and the conversation's switch off (read-only calls on the user's own tab or on no tab, the
 * agent's own lists, starting a sub-agent). Every other call (the ones the real gate would ask
 * about, and open-world ones) is refused with an error the model reads; the tool is not run.
 */
export const noGate: ToolGate = {
  async check(call: GatedCall) {
    const annotations = call.spec.annotations;
    const target = call.target;
    const decision = decide({
      annotations,
      hasTarget: target !== undefined,
      // A tab's tool that names no tab works on the user's own tab; any other tab is unknown here.
      onActiveTab: Boolean(target && annotations.pages && target.tabId === undefined && !target.url),
      allowedInConversation: false,
      trusted: false,
      outbound: Boolean(annotations.openWorld),
      local: false,
    });
    if (decision.action === 'allow') return { ok: true };
    return { ok: false, result: refused(call.name, decision.action === 'ask' ? decision.reason : 'acting') };
  },
};

function refused(tool: string, reason: AskReason): ToolResult {
  return {
    ok: false,
    code: 'denied',
    error: `Not run: ${tool} needs the user's approval (${WHY[reason]}), and this agent has no approval gate to ask the user. Go on without it.`,
  };
}
