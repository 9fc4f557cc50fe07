import { z } from 'zod';
import { defineSetting, lazy } from '@/core/storage/setting';
import type { Task } from './task-board';

/** A task as kept; made at the first read (`lazy`), not at every start of the background. */
const taskSchema = () =>
  z.object({
    task_id: z.string(),
    subject: z.string(),
    description: z.string().optional(),
    status: z.enum(['pending', 'in_progress', 'completed']),
    createdAt: z.number(),
    updatedAt: z.number(),
  });

/**
 * The agent's task lists by conversation, in `storage.session`: memory that the browser keeps
 * while it runs (never on disk), so the lists outlive Chrome stopping an idle service worker but
 * not a browser restart, as the spec wants for tasks. Not exported.
 */
export const sessionTasks = defineSetting<Record<string, Task[]>>('session:tasks', {
  fallback: {},
  schema: lazy(() => z.record(z.string(), z.array(taskSchema())) as z.ZodType<Record<string, Task[]>>),
  version: 1,
});
