/**
 * What the settings form sends about a server, checked before anything is saved or requested: its
 * address, its credentials (a bearer token and `Name: value` header lines), and the name it is
 * shown by.
 */
import { SaidError } from '@/core/i18n/catalog';
import { isLoopbackHost } from '@/core/net/local-network';
import { originOf } from '@/core/net/origin';
import type { McpServerConfig } from './types';

/** A user-facing error of the settings form. */
export class McpSettingsError extends SaidError {
  override name = 'McpSettingsError';
}

/** The server address, checked: http(s) only, no credentials in it. */
export function checkUrl(raw: string): string {
  const text = (raw ?? '').trim();
  if (!text) throw new McpSettingsError('mcp.errors.urlMissing', { example: 'https://mcp.example.com/mcp' });
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new McpSettingsError('mcp.errors.notUrl', { text: text.slice(0, 100), example: 'https://mcp.example.com/mcp' });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new McpSettingsError('mcp.errors.urlScheme');
  if (url.username || url.password) throw new McpSettingsError('mcp.errors.credentialsInUrl');
  url.hash = '';
  return url.href;
}

/**
 * The headers a server is sent: the user's lines and the bearer token, checked. Credentials go over
 * plain http:// only to this computer (`isLoopbackHost`, the one loopback test).
 */
export function credentialsFor(url: string, input: { bearerToken?: string; headers?: string }): Record<string, string> {
  const headers = parseHeaders(input.headers ?? '');
  const token = (input.bearerToken ?? '').trim();
  if (token) {
    if (/[\r\n]/.test(token)) throw new McpSettingsError('mcp.errors.tokenLines');
    headers.Authorization = `Bearer ${token}`;
  }
  const parsed = new URL(url);
  if (Object.keys(headers).length && parsed.protocol === 'http:' && !isLoopbackHost(parsed.hostname)) {
    throw new McpSettingsError('mcp.errors.plainHttp');
  }
  return headers;
}

/** `Name: value` lines → headers; blank lines are skipped; a malformed line is refused. */
export function parseHeaders(text: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [i, line] of text.split(/\r?\n/).entries()) {
    if (!line.trim()) continue;
    const at = line.indexOf(':');
    const name = at > 0 ? line.slice(0, at).trim() : '';
    const value = at > 0 ? line.slice(at + 1).trim() : '';
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name) || !value) {
      throw new McpSettingsError('mcp.errors.headerLine', { line: i + 1 });
    }
    headers[name] = value;
  }
  return headers;
}

/** The name a server is shown by: the user's, else its host. */
export function labelOf(config: Pick<McpServerConfig, 'name' | 'url'>): string {
  if (config.name) return config.name;
  try {
    return new URL(config.url).host;
  } catch {
    return config.url;
  }
}

/** The server's origin for the model's words (its tools' descriptions, results); the address itself when it is not one. */
export function serverOrigin(config: Pick<McpServerConfig, 'url'>): string {
  return originOf(config.url) || config.url;
}
