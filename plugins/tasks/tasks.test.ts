import { afterEach, describe, expect, test, vi } from 'vitest';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import { findSetting } from '@/core/storage/setting';
import { ToolRegistry } from '@/core/registry/registry';
import { tasksPlugin } from './index';
import { sessionTasks } from './storage';
import { TaskBoard } from './task-board';

afterEach(() => {
  vi.useRealTimers();
});

describe('tasks', () => {
  test('per conversation, with string ids, and errors that say how to recover', async () => {
    const saved: unknown[] = [];
    const board = new TaskBoard({ load: async () => ({}), save: async (all) => void saved.push(all) });
    const changes: string[] = [];
    board.onChange((id, tasks) => changes.push(`${id}:${tasks.length}`));
    expect(await board.create('c1', 'Find flights')).toMatchObject({ task_id: '1', status: 'pending' });
    expect(await board.create('c1', ' Book   hotel ', 'near the station')).toMatchObject({ task_id: '2', subject: 'Book hotel' });
    expect(await board.create('c2', 'Other')).toMatchObject({ task_id: '1' });
    expect(await board.update('c1', '2', { status: 'in_progress' })).toMatchObject({ status: 'in_progress', description: 'near the station' });
    await expect(board.update('c1', '9', { status: 'completed' })).rejects.toThrow(/ids are 1, 2.*list_tasks/);
    await expect(board.update('c1', '1', {})).rejects.toThrow(/Nothing to change/);
    await expect(board.create('c1', '   ')).rejects.toThrow(/needs a subject/);
    expect((await board.list('c1')).map((t) => t.status)).toEqual(['pending', 'in_progress']);
    expect(changes).toEqual(['c1:1', 'c1:2', 'c2:1', 'c1:2']);
    await board.drop('c1');
    expect(await board.list('c1')).toEqual([]);
    expect(saved.length).toBeGreaterThan(0);
  });

  test('the lists come back from the session copy after a restart', async () => {
    const store: Record<string, unknown> = {};
    const persist = { load: async () => (store.all ?? {}) as never, save: async (all: unknown) => void (store.all = all) };
    await new TaskBoard(persist).create('c1', 'Survive a restart');
    await new Promise((r) => setTimeout(r, 0));
    expect((await new TaskBoard(persist).list('c1')).map((t) => t.subject)).toEqual(['Survive a restart']);
  });

  test('the tools go through the registry with the conversation of the call', async () => {
    const registry = new ToolRegistry(() => () => null);
    registry.register({ ...tasksPlugin, source: 'builtin' }, new TaskBoard());
    const context = { conversationId: 'conv' };
    await registry.invoke('create_task', { subject: 'One' }, { context });
    const listed = await registry.invoke('list_tasks', {}, { context });
    expect(listed).toEqual({ ok: true, output: [{ task_id: '1', subject: 'One', status: 'pending' }] });
    expect(await registry.invoke('list_tasks', {}, { context: { conversationId: 'other' } })).toEqual({ ok: true, output: [] });
  });
});

describe('the task lists in storage.session', () => {
  test('are a setting (session:tasks, not exported), checked when read', async () => {
    expect(findSetting('session', 'tasks')).toMatchObject({ exported: false, secret: false });
    const task = { task_id: '1', subject: 'Read', status: 'pending' as const, createdAt: 1, updatedAt: 1 };
    await sessionTasks.setValue({ c1: [task] });
    expect(await fakeBrowser.storage.session.get('tasks')).toEqual({ tasks: { c1: [task] } });
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    await fakeBrowser.storage.session.set({ tasks: { c1: [{ task_id: 1 }] } });
    expect(await sessionTasks.getValue()).toEqual({});
    warn.mockRestore();
  });
});
