import { storage } from 'wxt/utils/storage';
import type { Task } from './task-board';

/**
 * The agent's task lists by conversation, in `storage.session`: memory that the browser keeps
 * while it runs (never on disk), so the lists outlive Chrome stopping an idle service worker but
 * not a browser restart, as the spec wants for tasks.
 */
export const sessionTasks = storage.defineItem<Record<string, Task[]>>('session:tasks', {
  fallback: {},
  version: 1,
});
