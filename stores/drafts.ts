import { defineStore } from 'pinia';
import { drafts } from '@/core/storage/settings';

/**
 * The message box's unsent text, by conversation ('new' for a conversation not created yet), so a
 * reload or a closed sidebar loses nothing. Storage is the source of truth and is read at each
 * switch of conversation: another sidebar window may have written it meanwhile.
 */
export const useDraftsStore = defineStore('drafts', () => {
  /** The saved draft of a conversation ('' when none). */
  async function read(key: string): Promise<string> {
    return (await drafts.getValue())[key] ?? '';
  }

  /** Saves a conversation's draft; '' removes it. */
  async function write(key: string, text: string): Promise<void> {
    const all = { ...(await drafts.getValue()) };
    if (text) all[key] = text;
    else delete all[key];
    await drafts.setValue(all);
  }

  return { read, write };
});
