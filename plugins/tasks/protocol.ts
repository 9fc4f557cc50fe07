import type { Task } from './task-board';

declare module '@/core/messaging/protocol' {
  interface ProtocolMap {
    /** The agent's task list of a conversation. */
    getTasks(data: { conversationId: string }): Task[];
  }
  interface UiEventMap {
    /** A conversation's task list changed. */
    tasks: { conversationId: string; tasks: Task[] };
  }
}

export {};
