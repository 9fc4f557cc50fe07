/**
 * The trace of one agent step: the HTTP request the provider client sent and the response it
 * received, as they went over the wire, with keys redacted. Kept per answer (`traces`, DB v5),
 * viewable and copyable from the message; never exported, never sent to the model.
 */
export interface StepTrace {
  /** The answer this step produced. */
  messageId: string;
  conversationId: string;
  at: number;
  /** Requests made for this step (a retried request counts twice); the last one is shown. */
  attempts: number;
  request: TracedRequest;
  response?: TracedResponse;
}

export interface TracedRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string;
  truncated?: boolean;
}

export interface TracedResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  truncated?: boolean;
}

/** What the provider client's fetch fills in while a step's request goes out and its answer comes back. */
export interface TraceSink {
  attempts: number;
  request?: TracedRequest;
  response?: TracedResponse;
}

/** Bodies are kept up to this many characters each. */
export const MAX_TRACE_BODY = 256 * 1024;

export const REDACTED = '[redacted]';

/** Headers that carry credentials, by lower-case name. */
const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'x-api-key', 'x-goog-api-key', 'api-key', 'cookie', 'set-cookie']);
/** Query parameters that carry credentials. */
const SECRET_PARAMS = new Set(['key', 'api_key', 'apikey', 'access_token', 'token']);

/** Headers as a plain record, credentials redacted. */
export function redactHeaders(headers: HeadersInit | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  new Headers(headers ?? {}).forEach((value, name) => {
    out[name] = SECRET_HEADERS.has(name.toLowerCase()) ? REDACTED : value;
  });
  return out;
}

/** An address with credential query parameters (`key=`…) redacted. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    let changed = false;
    for (const name of [...parsed.searchParams.keys()]) {
      if (SECRET_PARAMS.has(name.toLowerCase())) {
        parsed.searchParams.set(name, REDACTED);
        changed = true;
      }
    }
    return changed ? parsed.toString() : url;
  } catch {
    return url;
  }
}

/** Replaces every occurrence of the given secrets (the profile's API key) in a trace's text. */
export function scrubSecrets<T>(value: T, secrets: Array<string | undefined>): T {
  const keys = secrets.filter((s): s is string => Boolean(s && s.length >= 4));
  if (!keys.length) return value;
  const scrub = (text: string) => keys.reduce((acc, key) => acc.split(key).join(REDACTED), text);
  return JSON.parse(JSON.stringify(value), (_key, v) => (typeof v === 'string' ? scrub(v) : v)) as T;
}

/** Cuts a body to `MAX_TRACE_BODY` characters. */
export function capBody(body: string): { body: string; truncated?: boolean } {
  return body.length > MAX_TRACE_BODY ? { body: body.slice(0, MAX_TRACE_BODY), truncated: true } : { body };
}

/** Records a request as it leaves (credentials redacted). */
export function traceRequest(sink: TraceSink, input: RequestInfo | URL, init: RequestInit | undefined): void {
  sink.attempts++;
  const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
  const body = typeof init?.body === 'string' ? init.body : init?.body ? `[${Object.prototype.toString.call(init.body).slice(8, -1)} body]` : '';
  sink.request = { method: init?.method ?? 'GET', url: redactUrl(url), headers: redactHeaders(init?.headers), ...capBody(body) };
  sink.response = undefined;
}

/**
 * Records a response: its status and headers now; returns what records its body, to be called
 * with each chunk as it streams (by the one stage the fetch wrapper puts on the body).
 */
export function traceResponse(sink: TraceSink, response: Response): (chunk: Uint8Array) => void {
  const record: TracedResponse = { status: response.status, headers: redactHeaders(response.headers), body: '' };
  sink.response = record;
  const decoder = new TextDecoder();
  return (chunk) => {
    if (record.body.length < MAX_TRACE_BODY) {
      record.body += decoder.decode(chunk, { stream: true });
      if (record.body.length > MAX_TRACE_BODY) Object.assign(record, capBody(record.body));
    } else record.truncated = true;
  };
}

/** The trace as text for the clipboard: request then response, bodies pretty-printed when JSON. */
export function traceToText(trace: StepTrace): string {
  const pretty = (body: string) => {
    try {
      return JSON.stringify(JSON.parse(body), null, 2);
    } catch {
      return body;
    }
  };
  const headers = (h: Record<string, string>) => Object.entries(h).map(([k, v]) => `${k}: ${v}`).join('\n');
  const parts = [`${trace.request.method} ${trace.request.url}`, headers(trace.request.headers), '', pretty(trace.request.body)];
  if (trace.request.truncated) parts.push('[request body cut]');
  if (trace.response) {
    parts.push('', `HTTP ${trace.response.status}`, headers(trace.response.headers), '', pretty(trace.response.body));
    if (trace.response.truncated) parts.push('[response body cut]');
  }
  return parts.join('\n');
}
