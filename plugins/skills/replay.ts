import type { LanguageModelV3Prompt } from '@ai-sdk/provider';
import { ProviderError, type RunError } from '@/core/agent/errors';
import type { ModelClient, ModelEvent, ModelRequest, ProviderConfig } from '@/core/agent/provider';
import { said, type Said } from '@/core/i18n/catalog';
import type { ToolResult } from '@/core/registry/types';
import type { StoredMessage, ToolMessage } from '@/core/storage/db';
import { fillStep, shapeMatches } from './fill';
import { fillPlaceholders } from './placeholders';
import type { Skill } from './types';

/** What a skill's replay needs from the background (the service gives it; tests give their own). */
export interface ReplayOptions {
  skill: Skill;
  /** The arguments of this run (parameters not given take their example). */
  args: Record<string, string>;
  conversationId: string;
  /** The conversation's stored messages, oldest first (`ctx.conversations.messages`). */
  messages(conversationId: string): Promise<StoredMessage[]>;
  /** The tab the user looked at when the run started (`$tab {user: true}`). */
  userTabId?: number;
  /** The open tabs (`$tab {url}`). */
  tabs(): Promise<Array<{ id: number; url: string }>>;
  /** The conversation's model client; undefined (with `realError`) when none can be made. */
  real?: ModelClient;
  realError?: RunError;
  /** Told once when a step failed and the model takes over (not when there is no model). */
  onHandOver?(failure: string): void;
}

/** The most of a step's input or an error the hand-over note quotes. */
const NOTE_CAP = 300;

/**
 * Replays a skill as a `ModelClient` (`RunDriver.client`): each request answers with the skill's
 * next step as one tool call (no text, 0 tokens, `finish.by` naming the skill), so the same loop,
 * approval gate and registry run it as they run a model's call. Before the next step it reads the
 * previous step's result from the stored messages and checks it: an error result (a Deny too),
 * a result whose shape differs from `step.shape`, or a step `fillStep` cannot fill (its element or
 * tab is gone) hands the run over: from then on every request goes to the real model, with a
 * note added to the system message (the skill, its instruction, the steps done, what failed).
 * When every step passed, it ends with a short answer saying so.
 */
export class ReplayClient implements ModelClient {
  readonly config: ProviderConfig;
  private readonly by: Said;
  /** The results of the steps that passed, by step. */
  private readonly results: Array<ToolResult | undefined> = [];
  /** The step emitted last and its call id, until its result is checked. */
  private pending: { step: number; callId: string } | undefined;
  /** The next step to emit. */
  private next = 0;
  /** Set once the run is the model's: the note its system message gets. */
  private note: string | undefined;
  /** One line per step emitted, for the note. */
  private readonly lines: string[] = [];

  constructor(private readonly options: ReplayOptions) {
    // The real client's config: the answers are labelled with its model, its calls' metadata kept for it.
    this.config = options.real?.config ?? { baseUrl: '', model: '' };
    this.by = said('skills.replay.by', { name: options.skill.name });
  }

  /** Whether the run was handed over to the model. */
  get handedOver(): boolean {
    return this.note !== undefined;
  }

  async *stream(request: ModelRequest): AsyncGenerator<ModelEvent> {
    if (this.note !== undefined) {
      yield* this.model(request);
      return;
    }
    await request.beforeSend;
    if (request.signal.aborted) return;
    const { skill } = this.options;
    if (this.pending) {
      const failure = await this.check(this.pending.step, this.pending.callId);
      if (request.signal.aborted) return;
      this.pending = undefined;
      if (failure) {
        yield* this.handOver(request, failure);
        return;
      }
      this.next++;
    }
    if (this.next >= skill.steps.length) {
      const n = skill.steps.length;
      yield { type: 'text', text: `Replayed the ${n} step${n === 1 ? '' : 's'} of /${skill.name} without the model: 0 model tokens.` };
      yield { type: 'finish', finishReason: 'stop', usage: { inputTokens: 0, outputTokens: 0 }, by: this.by };
      return;
    }
    const index = this.next;
    const step = skill.steps[index]!;
    let filled: Awaited<ReturnType<typeof fillStep>>;
    try {
      filled = await fillStep(step, {
        args: this.options.args,
        params: skill.params,
        results: this.results,
        userTabId: this.options.userTabId,
        tabs: this.options.tabs,
      });
    } catch (error) {
      filled = { ok: false, error: error instanceof Error ? error.message : String(error) };
    }
    if (request.signal.aborted) return;
    if (!filled.ok) {
      this.lines.push(`${index + 1}. ${step.tool}: not run, it could not be prepared.`);
      yield* this.handOver(request, `Step ${index + 1} (${step.tool}) could not be prepared: ${JSON.stringify(cap(filled.error))}`);
      return;
    }
    const callId = `skill-${crypto.randomUUID()}`;
    this.pending = { step: index, callId };
    yield { type: 'tool-call', id: callId, name: filled.tool, input: filled.input };
    yield { type: 'finish', finishReason: 'tool-calls', usage: { inputTokens: 0, outputTokens: 0 }, by: this.by };
  }

  /** Checks the stored result of the step emitted last: undefined when it passed, else what failed. */
  private async check(index: number, callId: string): Promise<string | undefined> {
    const step = this.options.skill.steps[index]!;
    const messages = await this.options.messages(this.options.conversationId);
    const message = messages.find((m): m is ToolMessage => m.role === 'tool' && m.toolCallId === callId);
    const result = message?.result;
    const where = `Step ${index + 1} (${step.tool})`;
    if (!message || !result) {
      this.lines.push(`${index + 1}. ${step.tool}: no result.`);
      return `${where} has no result.`;
    }
    if (!result.ok) {
      this.lines.push(`${index + 1}. ${step.tool}: failed (${result.code}).`);
      return result.code === 'denied'
        ? `${where} was declined by the user; it did not run. Find another way, or ask the user.`
        : `${where} failed with an error (${result.code}); its result is above.`;
    }
    if (step.shape !== undefined && !shapeMatches(step.shape, result.output)) {
      this.lines.push(`${index + 1}. ${step.tool}: ran, but its result looks different.`);
      return `${where} ran, but its result does not look like it did when the skill was made (the page may have changed); its result is above.`;
    }
    this.results[index] = result;
    this.lines.push(`${index + 1}. ${step.tool}: done${message.toolName !== step.tool ? ` (as ${message.toolName})` : ''}.`);
    return undefined;
  }

  /** From now on the model finishes the run; without a model, the run fails with why. */
  private async *handOver(request: ModelRequest, failure: string): AsyncGenerator<ModelEvent> {
    const { skill, real, realError } = this.options;
    if (!real) {
      yield { type: 'text', text: `/${skill.name} could not be replayed to the end, and no model is set up to finish it. ${failure}` };
      yield { type: 'finish', finishReason: 'error', usage: { inputTokens: 0, outputTokens: 0 }, by: this.by };
      throw new ProviderError(realError ?? { kind: 'unknown', message: 'No model is set up.' });
    }
    this.note = this.handOverNote(failure);
    this.options.onHandOver?.(failure);
    yield* this.model(request);
  }

  private async *model(request: ModelRequest): AsyncGenerator<ModelEvent> {
    yield* this.options.real!.stream({ ...request, prompt: withNote(request.prompt, this.note!) });
  }

  /**
   * What the model is told on taking over. Words of the skill and the user only (its name, its
   * instruction, the tools of its steps and their argument names): the steps' results, and the
   * page lines its element locators keep, are a page's words; they reach the model as tool
   * results, marked untrusted where they are, not in the system message. The one exception: why a
   * step could not be prepared (`fillStep`'s words, which may name the element it looked for),
   * quoted and capped.
   */
  private handOverNote(failure: string): string {
    const { skill, args } = this.options;
    const rest = skill.steps
      .map((step, i) => ({ step, i }))
      .filter(({ i }) => i >= this.lines.length)
      .map(({ step, i }) => `${i + 1}. ${step.tool}${argumentNames(step.input)}`);
    return [
      `Note from Sidequest: the user ran the skill /${skill.name}, which replays saved steps without you. A step could not be replayed, so you take over.`,
      `The skill's instruction, with the user's arguments: ${JSON.stringify(cap(fillInstruction(skill, args), 2000))}`,
      `Steps done:\n${this.lines.join('\n') || '(none)'}`,
      ...(rest.length ? [`Steps not run yet, as saved (the page may have changed since):\n${rest.join('\n')}`] : []),
      `What went wrong: ${failure}`,
      'Finish the task the instruction describes; the steps above already ran.',
    ].join('\n\n');
  }
}

/** The skill's instruction with `{param}` filled (a missing argument: the parameter's example). */
export function fillInstruction(skill: Pick<Skill, 'instruction' | 'params'>, args: Record<string, string>): string {
  const values = new Map(skill.params.map((p) => [p.name, Object.prototype.hasOwnProperty.call(args, p.name) ? args[p.name]! : p.example]));
  const filled = fillPlaceholders(skill.instruction, (name) => values.get(name));
  return 'text' in filled ? filled.text : skill.instruction;
}

/** ` (a, b)`: the argument names of a step's input, for the note. */
function argumentNames(input: unknown): string {
  if (!input || typeof input !== 'object' || Array.isArray(input)) return '';
  const keys = Object.keys(input).filter((k) => /^[A-Za-z_][A-Za-z0-9_]{0,40}$/.test(k));
  return keys.length ? ` (${keys.slice(0, 8).join(', ')})` : '';
}

/** The prompt with the note added to its system message (or as one, if it has none). */
function withNote(prompt: LanguageModelV3Prompt, note: string): LanguageModelV3Prompt {
  const [first, ...rest] = prompt;
  if (first?.role === 'system') return [{ ...first, content: `${first.content}\n\n${note}` }, ...rest];
  return [{ role: 'system', content: note }, ...prompt];
}

function cap(text: string, max = NOTE_CAP): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/**
 * A `/name` line that cannot run (an unknown argument, an unclosed quote): the answer says why, in
 * the skill's name and without the model, and the run ends.
 */
export function explainClient(name: string, words: string, real: ModelClient | undefined): ModelClient {
  return {
    config: real?.config ?? { baseUrl: '', model: '' },
    async *stream(request) {
      await request.beforeSend;
      yield { type: 'text', text: words };
      yield { type: 'finish', finishReason: 'stop', usage: { inputTokens: 0, outputTokens: 0 }, by: said('skills.replay.by', { name }) };
    },
  };
}
