import { describe, expect, it } from 'vitest';
import { interpretedValidators } from '@/core/registry/interpreted-validator';
import { ToolRegistry } from '@/core/registry/registry';
import { PageToolsManager } from './manager';

describe('Delete all data', () => {
  it('forgetAll() forgets every site decision kept in memory', async () => {
    let stored: Record<string, unknown> = {};
    const manager = new PageToolsManager({
      registry: new ToolRegistry(interpretedValidators),
      permissions: { load: async () => ({}) as never, save: async (all) => void (stored = all) },
      tabsInPlay: async () => new Set(),
    });
    await manager.decide('https://shop.example', 'always');
    expect(manager.listPermissions().map((p) => p.origin)).toEqual(['https://shop.example']);
    expect(Object.keys(stored)).toEqual(['https://shop.example']);
    manager.forgetAll();
    expect(manager.listPermissions()).toEqual([]);
  });
});
