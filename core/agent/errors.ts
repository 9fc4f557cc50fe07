import { APICallError } from '@ai-sdk/provider';

/** What went wrong with the model provider, in categories the UI words differently. */
export type ProviderErrorKind =
  | 'auth'
  | 'rate_limit'
  | 'server'
  | 'not_found'
  | 'bad_request'
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
export function describeProviderError(error: unknown, baseUrl: string, { answerStarted = false } = {}): RunError {
  if (error instanceof ProviderError) return error.info;
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
    return { ...describeStatus(status, baseUrl), status, detail };
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
      message: 'The model provider sent a response that could not be read. It may not speak the OpenAI Chat Completions protocol, or the connection broke mid-answer.',
      detail: shorten(message),
    };
  }
  return { kind: 'unknown', message: `The model request failed: ${shorten(message)}` };
}

function describeStatus(status: number, baseUrl: string): Omit<RunError, 'status' | 'detail'> {
  if (status === 401 || status === 403) {
    return {
      kind: 'auth',
      message: `The model provider refused the request (HTTP ${status}): the API key is missing or wrong. Set it in Settings → Model provider.`,
    };
  }
  if (status === 429) {
    return { kind: 'rate_limit', message: 'The model provider is limiting requests (HTTP 429). Wait a moment, then send again.' };
  }
  if (status === 404) {
    return {
      kind: 'not_found',
      message: `The model provider answered HTTP 404: check the base URL (${baseUrl}) and the model name in Settings.`,
    };
  }
  if (status >= 500) {
    return { kind: 'server', message: `The model provider had a server error (HTTP ${status}). Try again in a moment.` };
  }
  return { kind: 'bad_request', message: `The model provider rejected the request (HTTP ${status}).` };
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
