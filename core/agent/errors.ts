import { APICallError } from '@ai-sdk/provider';
import { english, said, type MessageKey, type Said, type SaidParams } from '@/core/i18n/catalog';

/** What went wrong with the model provider, in categories the UI words differently. */
export type ProviderErrorKind =
  | 'auth'
  | 'rate_limit'
  | 'server'
  | 'not_found'
  | 'bad_request'
  | 'overloaded'
  /** The prompt is longer than the model's context window. */
  | 'context_length'
  | 'network'
  | 'malformed'
  | 'unknown';

/** A provider failure as stored on the conversation and shown to the user. */
export interface RunError {
  kind: ProviderErrorKind;
  /** A sentence for the user: what happened and what to do (English: traces, exports). */
  message: string;
  /** The same sentence as words the pages translate (absent in conversations saved before it). */
  said?: Said;
  status?: number;
  /** The provider's own words, when it sent any (shortened). */
  detail?: string;
}

export class ProviderError extends Error {
  override name = 'ProviderError';
  /** The words of `info`, where `saidOf` finds them as on any `SaidError`. */
  readonly said: Said | undefined;
  constructor(readonly info: RunError) {
    super(info.message);
    this.said = info.said;
  }
}

/** A `RunError` of `kind` worded by the message `key` (English `message`, translatable `said`). */
export function runError(kind: ProviderErrorKind, key: MessageKey, params?: SaidParams): RunError {
  const words = said(key, params);
  return { kind, message: english(words), said: words };
}

const BROKE_OFF = (): RunError => runError('network', 'errors.provider.brokeOff');
const unreachable = (baseUrl: string): RunError => runError('network', 'errors.provider.unreachable', { baseUrl });

/**
 * Maps whatever the SDK or fetch threw to a `RunError` the user can act on. `answerStarted`: the
 * provider had already answered HTTP 200 when it failed.
 */
export function describeProviderError(
  error: unknown,
  baseUrl: string,
  { answerStarted = false, protocol = 'OpenAI Chat Completions' }: { answerStarted?: boolean; protocol?: string } = {},
): RunError {
  if (error instanceof ProviderError) return error.info;
  const streamed = streamedError(error);
  if (streamed) return streamed;
  if (APICallError.isInstance(error)) {
    const status = error.statusCode;
    const detail = providerDetail(error.responseBody) ?? undefined;
    if (status === undefined) {
      return { ...unreachable(baseUrl), detail: causeMessage(error) ?? detail };
    }
    if (status >= 200 && status < 300) {
      // The answer had started (HTTP 200) and then the stream broke.
      return { ...BROKE_OFF(), detail: causeMessage(error) ?? detail };
    }
    return { ...describeStatus(status, baseUrl, detail), status, detail };
  }
  const name = (error as { name?: string } | null)?.name ?? '';
  const message = (error as { message?: string } | null)?.message ?? String(error);
  const unreadable = /JSONParseError|TypeValidationError|InvalidResponseDataError|EmptyResponseBodyError/.test(name);
  if (answerStarted && !unreadable && name === 'TypeError') {
    return { ...BROKE_OFF(), detail: message };
  }
  if (name === 'TypeError' && /fetch|network/i.test(message)) {
    return { ...unreachable(baseUrl), detail: message };
  }
  if (unreadable || /JSON|parse|validation/i.test(message)) {
    return { ...runError('malformed', 'errors.provider.malformed', { protocol }), detail: shorten(message) };
  }
  return runError('unknown', 'errors.provider.failed', { detail: shorten(message) });
}

/** Provider wordings of "the prompt does not fit the context window" (OpenAI, Anthropic, Gemini, Ollama, vLLM…). */
const CONTEXT_TOO_LONG =
  /context[_ ]length|context window|prompt is too long|too many tokens|maximum number of tokens|input length .*exceeds|exceeds the (maximum|available) context|maximum context length/i;

/** True when the provider's words say the prompt did not fit the model's context window. */
export function isContextTooLong(detail: string | undefined): boolean {
  return Boolean(detail && CONTEXT_TOO_LONG.test(detail));
}

function describeStatus(status: number, baseUrl: string, detail?: string): Omit<RunError, 'status' | 'detail'> {
  if ((status === 400 || status === 413) && isContextTooLong(detail)) {
    return runError('context_length', 'errors.provider.contextLength', { status });
  }
  const keyRefused = status === 400 && Boolean(detail && /api[ _-]?key not valid|invalid[ _-]?api[ _-]?key|API_KEY_INVALID/i.test(detail));
  if (status === 401 || status === 403 || keyRefused) {
    return runError('auth', 'errors.provider.auth', { status });
  }
  if (status === 429) {
    return runError('rate_limit', 'errors.provider.rateLimit', { status });
  }
  if (status === 529 || (status === 503 && /overload|busy/i.test(detail ?? ''))) {
    return runError('overloaded', 'errors.provider.overloaded', { status });
  }
  if (status === 404 || (status === 400 && detail && /model.*(not found|does not exist)|unknown model|invalid model/i.test(detail))) {
    return runError('not_found', 'errors.provider.notFound', { status, baseUrl });
  }
  if (status >= 500) {
    return runError('server', 'errors.provider.server', { status });
  }
  return runError('bad_request', 'errors.provider.rejected', { status });
}

/**
 * An error event inside a stream that had started (Anthropic's `event: error` with
 * `{type: 'overloaded_error', message}`): worded like the same error as an HTTP status.
 */
function streamedError(error: unknown): RunError | null {
  const e = error as { type?: unknown; message?: unknown; error?: { type?: unknown; message?: unknown } } | null;
  const type = typeof e?.type === 'string' ? e.type : typeof e?.error?.type === 'string' ? e.error.type : '';
  if (!/_error$/.test(type) || error instanceof Error) return null;
  const text = typeof e?.message === 'string' ? e.message : typeof e?.error?.message === 'string' ? e.error.message : type;
  const status =
    { overloaded_error: 529, rate_limit_error: 429, authentication_error: 401, permission_error: 403, not_found_error: 404, api_error: 500 }[type] ?? 400;
  return { ...describeStatus(status, '', text), status, detail: shorten(text) };
}

/** Pulls `error.message` out of an OpenAI-style error body, or a short plain body. */
function providerDetail(body: string | undefined): string | null {
  if (!body) return null;
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } | string; message?: unknown };
    const msg = typeof parsed.error === 'string' ? parsed.error : parsed.error?.message ?? parsed.message;
    if (typeof msg === 'string' && msg) return shorten(msg);
  } catch {
    // Not JSON: show the text itself if it is short and not an HTML page.
  }
  return /<html|<!doctype/i.test(body) ? null : shorten(body);
}

function causeMessage(error: APICallError): string | undefined {
  const cause = error.cause as { message?: string } | undefined;
  return cause?.message ? shorten(cause.message) : undefined;
}

function shorten(text: string, max = 300): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}
