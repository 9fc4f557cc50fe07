import { z } from 'zod';
import { SaidError, type Said } from '@/core/i18n/catalog';
import type { Conversation, StoredMessage } from '@/core/storage/db';

// Zod probes `new Function` unless told not to; the extension's CSP forbids it.
z.config({ jitless: true });

/**
 * The conversation archive: what **Export** writes and **Import** reads. Versioned JSON, one
 * entry per conversation with every stored message in order (user messages, answers with their
 * tool calls and usage, tool results with their live activity, sub-agents' steps included).
 * Imported files are hostile input: size-capped, parsed, checked against this schema, and
 * written whole or not at all.
 */
export const ARCHIVE_FORMAT = 'sidequest-conversations';
export const ARCHIVE_VERSION = 1;

/** The largest file Import reads (checked in the page before reading, and again here). */
export const MAX_IMPORT_BYTES = 25 * 1024 * 1024;

export interface ArchiveEntry {
  conversation: Conversation;
  messages: StoredMessage[];
}

export interface Archive {
  format: typeof ARCHIVE_FORMAT;
  version: typeof ARCHIVE_VERSION;
  exportedAt: string;
  conversations: ArchiveEntry[];
}

/** Translatable words (`Said`): a key, values that are text, numbers or words, at most 4 levels deep. */
function isSaidShape(value: unknown, depth = 0): boolean {
  if (depth > 4 || !value || typeof value !== 'object' || Array.isArray(value)) return false;
  const { key, params, count, ...rest } = value as { key?: unknown; params?: unknown; count?: unknown };
  if (Object.keys(rest).length || typeof key !== 'string' || key.length > 200) return false;
  if (count !== undefined && (typeof count !== 'number' || !Number.isFinite(count))) return false;
  if (params === undefined) return true;
  if (!params || typeof params !== 'object' || Array.isArray(params)) return false;
  const entries = Object.entries(params);
  return (
    entries.length <= 20 &&
    entries.every(
      ([name, v]) =>
        name.length <= 100 &&
        ((typeof v === 'string' && v.length <= 2_000) || (typeof v === 'number' && Number.isFinite(v)) || isSaidShape(v, depth + 1)),
    )
  );
}

/**
 * The archive's schema, built when a file is first read, not as the module loads: the background
 * imports this module at every start of its worker, and only an import reads a file
 * (bench/README.md, round 7 of issue 22).
 */
function buildArchiveSchema() {
  const id = z.string().min(1).max(200);
  const time = z.number().finite().nonnegative();
  const text = z.string().max(5_000_000);
  const short = z.string().max(2_000);

  const usage = z.object({
    inputTokens: z.number().finite().nonnegative().optional(),
    outputTokens: z.number().finite().nonnegative().optional(),
    cachedInputTokens: z.number().finite().nonnegative().optional(),
    cacheWriteTokens: z.number().finite().nonnegative().optional(),
    costUsd: z.number().finite().nonnegative().optional(),
  });

  const saidSchema = z.custom<Said>((value) => isSaidShape(value), { message: 'not translatable words (key, params)' });

  const runError = z.object({
    kind: z.string().max(40),
    message: text,
    said: saidSchema.optional(),
    status: z.number().optional(),
    detail: text.optional(),
  });

  const conversationSchema = z.object({
    id,
    title: z.string().max(200),
    titleEdited: z.boolean().optional(),
    createdAt: time,
    updatedAt: time,
    status: z.enum(['idle', 'running', 'stopped', 'interrupted', 'error', 'step_limit', 'budget', 'loop']),
    error: runError.optional(),
    model: short.optional(),
    // `actWithoutAsking` is read but never imported: a file must not switch the approvals off. Nor does
    // a file grant anything ahead: `grantedAhead` is not in this schema, so it is dropped.
    actWithoutAsking: z.boolean().optional(),
    budget: z.object({ used: z.number().finite().nonnegative(), limit: z.number().finite().nonnegative() }).optional(),
    loop: saidSchema.optional(),
    // `contextSummary` (the model's summary made to fit its context window) is derived data: not
    // written, and dropped on import (not in this schema); a conversation's next run makes it again.
  });

  // A tool call's provider metadata (Gemini's thought signature), sent back to its own provider type and model only.
  const callMetadata = z.object({
    type: short,
    model: short,
    value: z.record(z.string().max(200), z.record(z.string().max(200), z.unknown())).refine((v) => JSON.stringify(v).length <= 65_536, 'too large'),
  });

  const base = { id, conversationId: id, seq: z.number().int().nonnegative(), createdAt: time };

  // `notice`: Sidequest's own line after a result (the loop guard's "you are repeating yourself"),
  // kept so a re-export equals the export (a file's tool results reach the model as they are anyway).
  const notice = z.string().max(2000).optional();
  const toolResult = z.union([
    z.object({ ok: z.literal(true), output: z.unknown(), truncated: z.boolean().optional(), notice }),
    z.object({ ok: z.literal(false), error: text, code: z.string().max(40), notice }),
  ]);

  const messageSchema = z.discriminatedUnion('role', [
    z.object({ ...base, role: z.literal('user'), text }),
    z.object({
      ...base,
      role: z.literal('assistant'),
      text,
      status: z.enum(['streaming', 'complete', 'stopped', 'interrupted', 'error']),
      toolCalls: z.array(z.object({ id, name: short, input: z.unknown(), invalid: short.optional(), providerMetadata: callMetadata.optional() })).max(1000),
      model: short.optional(),
      usage: usage.optional(),
      notice: z.enum(['prompted-tools', 'context']).optional(),
      said: saidSchema.optional(),
      by: saidSchema.optional(),
    }),
    z.object({
      ...base,
      role: z.literal('tool'),
      toolCallId: id,
      toolName: short,
      input: z.unknown(),
      status: z.enum(['running', 'done', 'error', 'interrupted']),
      result: toolResult.optional(),
      pluginId: short.optional(),
      origin: short.optional(),
      durationMs: z.number().finite().nonnegative().optional(),
      activity: z.unknown().optional(),
    }),
  ]);

  return z.object({
    format: z.literal(ARCHIVE_FORMAT),
    version: z.literal(ARCHIVE_VERSION),
    exportedAt: z.string().max(100),
    conversations: z
      .array(z.object({ conversation: conversationSchema, messages: z.array(messageSchema).max(200_000) }))
      .max(100_000),
  });
}
let archiveSchema: ReturnType<typeof buildArchiveSchema> | undefined;

/** An import that cannot be done, in words that say what is wrong with the file. */
export class ImportError extends SaidError {
  override name = 'ImportError';
}

/** Makes the archive of these conversations. */
export function makeArchive(entries: ArchiveEntry[], now = new Date()): Archive {
  const conversations = entries.map(({ conversation: { contextSummary: _derived, ...conversation }, messages }) => ({ conversation, messages }));
  return { format: ARCHIVE_FORMAT, version: ARCHIVE_VERSION, exportedAt: now.toISOString(), conversations };
}

/**
 * Reads an archive file's text: size, JSON, format, version, then every field. Throws
 * `ImportError` naming the first problems found (their place in the file). What comes back is
 * clean: only known fields, conversations still marked running become interrupted, messages
 * carry their conversation's id, and no conversation arrives with approvals switched off.
 */
export function parseArchive(textOfFile: string): Archive {
  if (textOfFile.length > MAX_IMPORT_BYTES) {
    throw new ImportError('errors.import.tooLarge', { size: megabytes(textOfFile.length), max: megabytes(MAX_IMPORT_BYTES) });
  }
  let raw: unknown;
  try {
    raw = JSON.parse(textOfFile);
  } catch (error) {
    throw new ImportError('errors.import.notJson', { detail: (error as Error).message });
  }
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new ImportError('errors.import.noObject');
  const head = raw as { format?: unknown; version?: unknown };
  if (head.format !== ARCHIVE_FORMAT) {
    throw head.format === SETTINGS_FORMAT_NAME
      ? new ImportError('errors.import.settingsFile')
      : new ImportError('errors.import.wrongFormat', { found: describe(head.format), expected: ARCHIVE_FORMAT });
  }
  if (head.version !== ARCHIVE_VERSION) {
    const newer = typeof head.version === 'number' && head.version > ARCHIVE_VERSION;
    throw newer
      ? new ImportError('errors.import.newerVersion', { version: String(head.version), expected: ARCHIVE_VERSION })
      : new ImportError('errors.import.wrongVersion', { version: describe(head.version), expected: ARCHIVE_VERSION });
  }
  const parsed = (archiveSchema ??= buildArchiveSchema()).safeParse(raw);
  if (!parsed.success) throw new ImportError('errors.import.invalid', { issues: describeIssues(parsed.error.issues) });
  const seen = new Set<string>();
  const messageIds = new Set<string>();
  const conversations: ArchiveEntry[] = parsed.data.conversations.map((entry, index) => {
    const { actWithoutAsking: _ignored, ...conversation } = entry.conversation;
    if (seen.has(conversation.id)) throw new ImportError('errors.import.invalid', { issues: `conversations[${index}] repeats the id ${conversation.id}` });
    seen.add(conversation.id);
    const messages = entry.messages.map((message, at) => {
      if (messageIds.has(message.id)) throw new ImportError('errors.import.invalid', { issues: `conversations[${index}].messages[${at}] repeats the message id ${message.id}` });
      messageIds.add(message.id);
      return { ...message, conversationId: conversation.id } as StoredMessage;
    });
    const status = conversation.status === 'running' ? 'interrupted' : conversation.status;
    return { conversation: { ...conversation, status } as Conversation, messages };
  });
  return { format: ARCHIVE_FORMAT, version: ARCHIVE_VERSION, exportedAt: parsed.data.exportedAt, conversations };
}

/** The format name of a settings file (`settings-file.ts`), recognised here to say which button takes it. */
export const SETTINGS_FORMAT_NAME = 'sidequest-settings';

/** Zod's issues as one sentence: the first few, each with its place in the file. */
export function describeIssues(issues: z.core.$ZodIssue[], max = 4): string {
  const parts = issues.slice(0, max).map((issue) => {
    const where = issue.path.reduce<string>((acc, key) => (typeof key === 'number' ? `${acc}[${key}]` : acc ? `${acc}.${String(key)}` : String(key)), '');
    return `${where || 'the file'}: ${issue.message}`;
  });
  const more = issues.length > max ? ` (and ${issues.length - max} more)` : '';
  return parts.join('; ') + more;
}

function describe(value: unknown): string {
  if (value === undefined) return 'missing';
  const json = JSON.stringify(value) ?? String(value);
  return json.length > 40 ? `${json.slice(0, 40)}…` : json;
}

function megabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

