import { z } from 'zod';
import { said } from '@/core/i18n/catalog';
import type { PluginSettingsFile } from '@/core/data/settings-import';
import { lazy } from '@/core/storage/setting';
import { labelOf } from './server-input';
import type { McpServerConfig } from './types';

/**
 * The stored servers (`mcp/servers`), checked when read and when a settings file brings them; made
 * at the first such check (`lazy`), not at every start of the background.
 */
export const serversSchema = lazy((): z.ZodType<McpServerConfig[]> => {
  const annotations = z
    .object({ readOnlyHint: z.boolean(), destructiveHint: z.boolean(), openWorldHint: z.boolean(), idempotentHint: z.boolean(), title: z.string() })
    .partial();
  return z.array(
    z.object({
      id: z.string().min(1).max(100),
      url: z.string(),
      name: z.string(),
      slug: z.string(),
      addedAt: z.number(),
      tools: z.array(
        z.object({
          name: z.string(),
          title: z.string().optional(),
          description: z.string().optional(),
          inputSchema: z.record(z.string(), z.unknown()),
          annotations: annotations.optional(),
        }),
      ),
      imported: z.boolean().optional(),
      allowedOrigins: z.array(z.string()).optional(),
    }),
  ) as z.ZodType<McpServerConfig[]>;
});

/** A server's secrets in the plugin's storage: its headers (bearer token among them), its OAuth state. */
export const credentialsName = (id: string) => `server.${id}`;
export const oauthName = (id: string) => `server.${id}.oauth`;

/**
 * The servers in a settings file: each is kept at its URL with its credentials and OAuth tokens,
 * so the import's key rule applies (a server moved to another origin, or brought back, loses what
 * was saved for it unless the file carries its own) and its address is marked `imported`.
 */
export const mcpSettingsFile: PluginSettingsFile = {
  items: {
    servers: {
      schema: serversSchema,
      title: said('mcp.import.title'),
      addressed: {
        entries: (servers: McpServerConfig[]) =>
          servers.map((s) => ({ id: s.id, name: labelOf(s), url: s.url, imported: s.imported, secrets: [credentialsName(s.id), oauthName(s.id)], value: s })),
        mark: (servers: McpServerConfig[], imported: ReadonlySet<string>) =>
          servers.map(({ imported: _mark, ...s }): McpServerConfig => (imported.has(s.id) ? { ...s, imported: true } : s)),
        secretWords: 'mcp.import.credentialsOf',
      },
    },
  },
};
