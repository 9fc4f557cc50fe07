import type { FromSchema } from 'json-schema-to-ts';
import { definePlugin } from '@/core/plugin';
import { defineTool } from '@/core/registry/registry';
import type { ToolContext } from '@/core/registry/types';
import './protocol';
import { sessionTasks } from './storage';
import { TaskBoard, type Task } from './task-board';
import { tasksSchemas } from './schemas';

/** A task as the model sees it. */
export interface TaskView {
  task_id: string;
  subject: string;
  status: Task['status'];
  description?: string;
}

function view(task: Task, withDescription = true): TaskView {
  const out: TaskView = { task_id: task.task_id, subject: task.subject, status: task.status };
  if (withDescription && task.description) out.description = task.description;
  return out;
}

function conversationOf(context: ToolContext): string {
  if (!context.conversationId) throw new Error('Tasks belong to a conversation, and this call has none.');
  return context.conversationId;
}

/** The agent's own list: changing it touches nothing of the user's. */
const OWN_LIST = { readOnly: false, destructive: false, openWorld: false } as const;

/** The built-in `tasks` plugin: the model's own to-do list for multi-step work, per conversation. */
export const tasksPlugin = definePlugin<TaskBoard>({
  id: 'tasks',
  name: 'Tasks',
  description: 'A to-do list the agent keeps for multi-step work; the sidebar shows it live.',
  tools: [
    defineTool<FromSchema<typeof tasksSchemas.create_task>, TaskView, TaskBoard>({
      name: 'create_task',
      description:
        'Add a pending task to this conversation\'s to-do list, which the user sees, to plan work of several steps.',
      inputSchema: tasksSchemas.create_task,
      annotations: OWN_LIST,
      async execute({ subject, description }, context) {
        return view(await context.service.create(conversationOf(context), subject, description));
      },
    }),
    defineTool<FromSchema<typeof tasksSchemas.update_task>, TaskView, TaskBoard>({
      name: 'update_task',
      description:
        'Change a task: in_progress when you start it, completed when done, or a new subject or description.',
      inputSchema: tasksSchemas.update_task,
      annotations: OWN_LIST,
      async execute({ task_id, ...patch }, context) {
        return view(await context.service.update(conversationOf(context), task_id, patch));
      },
    }),
    defineTool<FromSchema<typeof tasksSchemas.list_tasks>, TaskView[], TaskBoard>({
      name: 'list_tasks',
      description: 'List this conversation\'s tasks: task_id, subject and status.',
      inputSchema: tasksSchemas.list_tasks,
      // The conversation's own tasks, written by its agents: nothing private is read.
      annotations: { readOnly: true, destructive: false, openWorld: false, privateData: false },
      async execute(_input, context) {
        return (await context.service.list(conversationOf(context))).map((t) => view(t, false));
      },
    }),
  ],
  setup(ctx) {
    const board = new TaskBoard({ load: () => sessionTasks.getValue(), save: (all) => sessionTasks.setValue(all) });
    const stop = board.onChange((conversationId, tasks) => ctx.broadcast({ type: 'tasks', conversationId, tasks }));
    ctx.retained('taskLists', () => board.size);
    ctx.handle('getTasks', ({ conversationId }) => board.list(conversationId));
    ctx.conversations.onDeleted((id) => board.drop(id));
    return { service: board, dispose: stop };
  },
});
