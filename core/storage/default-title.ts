/** The title a new conversation has until its first message names it (stored in English; pages show it translated). */
export const DEFAULT_TITLE = 'New conversation';
