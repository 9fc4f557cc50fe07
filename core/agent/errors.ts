import { APICallError } from '@ai-sdk/provider';

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
  /** A sentence for the user: what happened and what to do. */
  message: string;
  status?: number;
  /** The provider's own words, when it sent any (shortened). */
  detail?: string;
}

export class ProviderError extends Error {
  override name = 'ProviderError';
  constructor(readonly info: RunError) {
    super(info.message);
  }
}

const BROKE_OFF = 'The connection to the model provider broke off in the middle of the answer. Retry to ask again.';

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
      return {
        kind: 'network',
        message: `Could not reach the model provider at ${baseUrl}. Check that it is running and that the base URL in Settings is right.`,
        detail: causeMessage(error) ?? detail,
      };
    }
    if (status >= 200 && status < 300) {
      // The answer had started (HTTP 200) and then the stream broke.
      return { kind: 'network', message: BROKE_OFF, detail: causeMessage(error) ?? detail };
    }
    return { ...describeStatus(status, baseUrl, detail), status, detail };
  }
  const name = (error as { name?: string } | null)?.name ?? '';
  const message = (error as { message?: string } | null)?.message ?? String(error);
  const unreadable = /JSONParseError|TypeValidationError|InvalidResponseDataError|EmptyResponseBodyError/.test(name);
  if (answerStarted && !unreadable && name === 'TypeError') {
    return { kind: 'network', message: BROKE_OFF, detail: message };
  }
  if (name === 'TypeError' && /fetch|network/i.test(message)) {
    return {
      kind: 'network',
      message: `Could not reach the model provider at ${baseUrl}. Check that it is running and that the base URL in Settings is right.`,
      detail: message,
    };
  }
  if (unreadable || /JSON|parse|validation/i.test(message)) {
    return {
      kind: 'malformed',
      message: `The model provider sent a response that could not be read. It may not speak the ${protocol} protocol, or the connection broke mid-answer.`,
      detail: shorten(message),
    };
  }
  return { kind: 'unknown', message: `The model request failed: ${shorten(message)}` };
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
    return {
      kind: 'context_length',
      message: `The conversation is too long for the model's context window (HTTP ${status}). Start a new conversation, or pick a model with a larger context.`,
    };
  }
  const keyRefused = status === 400 && Boolean(detail && /api[ _-]?key not valid|invalid[ _-]?api[ _-]?key|API_KEY_INVALID/i.test(detail));
  if (status === 401 || status === 403 || keyRefused) {
    return {
      kind: 'auth',
      message: `The model provider refused the request (HTTP ${status}): the API key is missing or wrong. Set it in Settings → Model provider.`,
    };
  }
  if (status === 429) {
    return { kind: 'rate_limit', message: 'The model provider is limiting requests (HTTP 429). Wait a moment, then send again.' };
  }
  if (status === 529 || (status === 503 && /overload|busy/i.test(detail ?? ''))) {
    return { kind: 'overloaded', message: `The model provider is overloaded (HTTP ${status}). Try again in a moment.` };
  }
  if (status === 404 || (status === 400 && detail && /model.*(not found|does not exist)|unknown model|invalid model/i.test(detail))) {
    return {
      kind: 'not_found',
      message: `The model provider answered HTTP ${status}: it does not know this model or address. Check the base URL (${baseUrl}) and the model name in Settings.`,
    };
  }
  if (status >= 500) {
    return { kind: 'server', message: `The model provider had a server error (HTTP ${status}). Try again in a moment.` };
  }
  return { kind: 'bad_request', message: `The model provider rejected the request (HTTP ${status}).` };
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
