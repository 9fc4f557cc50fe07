/** One task of the model's own to-do list in a conversation. */
export interface Task {
  task_id: string;
  subject: string;
  description?: string;
  status: TaskStatus;
  createdAt: number;
  updatedAt: number;
}

export type TaskStatus = 'pending' | 'in_progress' | 'completed';

/** Where the board keeps a copy that outlives a stopped worker (storage.session); optional. */
export interface TaskBoardStore {
  load(): Promise<Record<string, Task[]>>;
  save(all: Record<string, Task[]>): Promise<void>;
}

export const MAX_TASKS = 100;
const MAX_SUBJECT = 200;
const MAX_DESCRIPTION = 2000;

/**
 * The task lists of all conversations, kept in memory (the spec: tasks are not persisted). A copy
 * goes to `storage.session` when one is given, which is memory too but survives Chrome stopping
 * the service worker between steps; nothing reaches the disk. Ids are short strings ("1", "2"…)
 * counted per conversation.
 */
export class TaskBoard {
  private lists = new Map<string, Task[]>();
  private readonly listeners = new Set<(conversationId: string, tasks: Task[]) => void>();
  private loaded: Promise<void> | undefined;
  private saving: Promise<void> = Promise.resolve();

  constructor(private readonly store?: TaskBoardStore) {}

  /** How many conversations have a task list in memory (`ctx.retained`): dropped with the conversation. */
  get size(): number {
    return this.lists.size;
  }

  /** Reads the session copy once; every method waits for it. */
  private ready(): Promise<void> {
    this.loaded ??= (async () => {
      if (!this.store) return;
      try {
        const all = await this.store.load();
        for (const [id, tasks] of Object.entries(all ?? {})) {
          if (!this.lists.has(id) && Array.isArray(tasks)) this.lists.set(id, tasks);
        }
      } catch (error) {
        console.warn('[sidequest] task lists could not be restored', error);
      }
    })();
    return this.loaded;
  }

  async list(conversationId: string): Promise<Task[]> {
    await this.ready();
    return (this.lists.get(conversationId) ?? []).map((t) => ({ ...t }));
  }

  async create(conversationId: string, subject: string, description?: string): Promise<Task> {
    await this.ready();
    const tasks = this.lists.get(conversationId) ?? [];
    if (tasks.length >= MAX_TASKS) {
      throw new Error(`This conversation already has ${MAX_TASKS} tasks, the most it may have. Update existing tasks instead of adding more.`);
    }
    const clean = cleanSubject(subject);
    const next = tasks.reduce((max, t) => Math.max(max, Number(t.task_id) || 0), 0) + 1;
    const now = Date.now();
    const task: Task = { task_id: String(next), subject: clean, status: 'pending', createdAt: now, updatedAt: now };
    const desc = cleanDescription(description);
    if (desc) task.description = desc;
    this.lists.set(conversationId, [...tasks, task]);
    this.changed(conversationId);
    return { ...task };
  }

  async update(
    conversationId: string,
    taskId: string,
    patch: { status?: TaskStatus; subject?: string; description?: string },
  ): Promise<Task> {
    await this.ready();
    const tasks = this.lists.get(conversationId) ?? [];
    const at = tasks.findIndex((t) => t.task_id === String(taskId).trim());
    if (at < 0) {
      const ids = tasks.map((t) => t.task_id);
      throw new Error(
        ids.length
          ? `There is no task "${taskId}" in this conversation (the ids are ${ids.join(', ')}). Call list_tasks to see them.`
          : `There is no task "${taskId}": this conversation has no tasks yet. Create one with create_task.`,
      );
    }
    if (patch.status === undefined && patch.subject === undefined && patch.description === undefined) {
      throw new Error('Nothing to change: give status, subject or description.');
    }
    const task = { ...tasks[at]! };
    if (patch.status !== undefined) task.status = patch.status;
    if (patch.subject !== undefined) task.subject = cleanSubject(patch.subject);
    if (patch.description !== undefined) {
      const desc = cleanDescription(patch.description);
      if (desc) task.description = desc;
      else delete task.description;
    }
    task.updatedAt = Date.now();
    const next = [...tasks];
    next[at] = task;
    this.lists.set(conversationId, next);
    this.changed(conversationId);
    return { ...task };
  }

  /** Forgets a conversation's tasks (the conversation was deleted). */
  async drop(conversationId: string): Promise<void> {
    await this.ready();
    if (!this.lists.delete(conversationId)) return;
    this.changed(conversationId);
  }

  /** Calls `listener` with a conversation's new list whenever it changes. */
  onChange(listener: (conversationId: string, tasks: Task[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(conversationId: string): void {
    const tasks = (this.lists.get(conversationId) ?? []).map((t) => ({ ...t }));
    for (const listener of this.listeners) listener(conversationId, tasks);
    if (this.store) {
      const snapshot = Object.fromEntries(this.lists);
      this.saving = this.saving.then(() => this.store!.save(snapshot)).catch((error) => {
        console.warn('[sidequest] task lists could not be kept in session storage', error);
      });
    }
  }
}

function cleanSubject(subject: string): string {
  const clean = subject.replace(/\s+/g, ' ').trim();
  if (!clean) throw new Error('A task needs a subject: a few words saying what is to be done.');
  if (clean.length > MAX_SUBJECT) {
    throw new Error(`The subject is ${clean.length} characters; keep it under ${MAX_SUBJECT} and put details in description.`);
  }
  return clean;
}

function cleanDescription(description: string | undefined): string | undefined {
  if (description === undefined) return undefined;
  const clean = description.trim();
  if (clean.length > MAX_DESCRIPTION) {
    throw new Error(`The description is ${clean.length} characters; keep it under ${MAX_DESCRIPTION}.`);
  }
  return clean || undefined;
}
