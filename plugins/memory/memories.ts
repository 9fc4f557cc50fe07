import { z } from 'zod';
import { SaidError } from '@/core/i18n/catalog';
import { lazy } from '@/core/storage/setting';

z.config({ jitless: true });

/**
 * One thing the user asked the agent to remember, in their words: typed in Settings → Memory, or
 * proposed by the model (`remember`) and allowed on its card. Kept in the plugin's storage
 * (`memories`), in the settings file, and in the system prompt of every run while memory is on.
 */
export interface Memory {
  id: string;
  /** One line: white space made single spaces, no control characters, at most `MEMORY_LIMITS.chars`. */
  text: string;
  /** Who wrote it: the user in Settings (or a settings file), or the agent with the user's yes. */
  by: 'user' | 'agent';
  /** When it was kept, and last edited. */
  at: number;
  edited?: number;
}

/**
 * The bounds, which are the prompt's too: every memory kept goes into the prompt, so what Settings
 * shows is what the model gets. At most 2,000 characters in all (about 500 tokens, under 2,300
 * characters with the section's own words), 30 memories, 200 characters each.
 */
export const MEMORY_LIMITS = { chars: 200, count: 30, total: 2_000 } as const;

/** Control characters, line and paragraph separators and bidi controls: none of them belongs in a one-line memory. */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** A memory's text as it is kept and shown: one line, white space single, trimmed. */
export function cleanText(text: string): string {
  return text.replace(CONTROL, ' ').replace(/\s+/g, ' ').trim();
}

/** The memory's text made clean and checked, or a `SaidError` the user (and the model) reads. */
export function checkedText(text: string): string {
  const clean = cleanText(text);
  if (!clean) throw new SaidError('memory.errors.empty');
  if (clean.length > MEMORY_LIMITS.chars) throw new SaidError('memory.errors.tooLong', { max: MEMORY_LIMITS.chars, length: clean.length });
  return clean;
}

/** Characters the memories take in all. */
export const usedChars = (memories: readonly Pick<Memory, 'text'>[]) => memories.reduce((n, m) => n + m.text.length, 0);

/** Throws when `memories` would be over the bounds (the whole list, as it would be kept). */
export function checkRoom(memories: readonly Memory[]): void {
  if (memories.length > MEMORY_LIMITS.count) throw new SaidError('memory.errors.full', { max: MEMORY_LIMITS.count });
  if (usedChars(memories) > MEMORY_LIMITS.total) throw new SaidError('memory.errors.fullChars', { max: MEMORY_LIMITS.total });
}

/**
 * The kept list's schema, also a settings file's (Settings → Data): strings only where text is, each
 * text already clean (no line breaks to fake a section of the prompt with), bounded in count and
 * size, ids unique. A file that does not fit is refused whole.
 */
export const memoriesSchema = lazy(() =>
  z
    .array(
      z.object({
        id: z.string().min(1).max(64),
        text: z
          .string()
          .min(1)
          .max(MEMORY_LIMITS.chars)
          .refine((text) => cleanText(text) === text, 'a memory is one line of text, without control characters or extra spaces'),
        by: z.enum(['user', 'agent']),
        at: z.number().finite().nonnegative(),
        edited: z.number().finite().nonnegative().optional(),
      }),
    )
    .max(MEMORY_LIMITS.count)
    .refine((list) => usedChars(list) <= MEMORY_LIMITS.total, `the memories hold more than ${MEMORY_LIMITS.total} characters in all`)
    .refine((list) => new Set(list.map((m) => m.id)).size === list.length, 'two memories have the same id'),
);

/** The first words of the prompt's section: what follows is the user's, and only the user's. */
export const SECTION_HEAD =
  'The user asked you to remember the following, each line in their own words or in words they approved (kept in Sidequest\'s Memory settings, which they can edit). Use it where it helps; do not repeat it back unless asked:';

/** The system prompt's paragraph for these memories (undefined for none). */
export function memorySection(memories: readonly Pick<Memory, 'text'>[]): string | undefined {
  // Bounded again here: a list is checked when kept, and this is the one place the model trusts.
  const shown: string[] = [];
  let total = 0;
  for (const memory of memories.slice(0, MEMORY_LIMITS.count)) {
    const text = cleanText(memory.text).slice(0, MEMORY_LIMITS.chars);
    if (!text || total + text.length > MEMORY_LIMITS.total) continue;
    total += text.length;
    shown.push(`- ${text}`);
  }
  return shown.length ? [SECTION_HEAD, ...shown].join('\n') : undefined;
}
