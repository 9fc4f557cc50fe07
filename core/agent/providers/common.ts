import { isLoopbackHost } from '@/core/net/local-network';
import { ProviderError, runError } from '../errors';

/** One model a provider lists. */
export interface ModelInfo {
  id: string;
  /** A display name, when the provider gives one. */
  name?: string;
  /** The context window in tokens, when the provider says. */
  contextLength?: number;
}

export function trimUrl(url: string): string {
  return url.trim().replace(/\/+$/, '');
}

/**
 * Refuses to send an API key over plain http:// to another computer: anyone on the way could read
 * it. Local servers (Ollama, LM Studio) on http://localhost are fine.
 */
export function assertKeyTransport(baseUrl: string, apiKey: string | undefined): void {
  if (!apiKey) return;
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return;
  }
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    throw new ProviderError(runError('bad_request', 'errors.provider.plainHttpKey', { host: url.host }));
  }
}

/** GETs (or POSTs) JSON for model lists and model details; throws an `Error` with the status in words. */
export async function fetchJson<T>(
  url: string,
  init: RequestInit & { timeoutMs?: number } = {},
): Promise<T> {
  const response = await fetch(url, { ...init, signal: init.signal ?? AbortSignal.timeout(init.timeoutMs ?? 8000) });
  if (!response.ok) {
    const body = await response.text().catch(() => '');
    throw new HttpError(response.status, body);
  }
  return (await response.json()) as T;
}

export class HttpError extends Error {
  override name = 'HttpError';
  constructor(
    readonly status: number,
    readonly body: string,
  ) {
    super(`HTTP ${status}`);
  }
}
