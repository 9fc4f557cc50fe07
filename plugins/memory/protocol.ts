import type { Memory } from './memories';

/** What the pages see of the memory: the switch, and the memories in the order kept. */
export interface MemoryState {
  enabled: boolean;
  memories: Memory[];
}

declare module '@/core/messaging/protocol' {
  interface ProtocolMap {
    /** The switch and the memories (Settings → Memory). */
    'memory/list'(): MemoryState;
    /** The user's own "Remember that …"; refused (with words) when empty, too long or full. */
    'memory/add'(data: { text: string }): MemoryState;
    /** The user edits a memory's words. */
    'memory/edit'(data: { id: string; text: string }): MemoryState;
    'memory/delete'(data: { id: string }): MemoryState;
    /** Memory on or off entirely: off, no conversation's prompt carries any. */
    'memory/setEnabled'(data: { enabled: boolean }): MemoryState;
    /** The conversations whose prompt leaves the memories out (the conversation menu's switch). */
    'memory/leftOut'(): string[];
    /** Leaves the memories out of one conversation's prompt, or puts them back. */
    'memory/setLeftOut'(data: { conversationId: string; leftOut: boolean }): string[];
  }
  interface UiEventMap {
    /** The memories or the switch changed (in Settings, by an allowed `remember`, by an import). */
    memory: MemoryState;
    /** A conversation's switch changed. */
    'memory-left-out': { conversationIds: string[] };
  }
}

export {};
