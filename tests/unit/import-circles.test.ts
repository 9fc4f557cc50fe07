import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { describeCircle, importCircles } from '../../scripts/import-circles.mjs';

// Every folder of core/ reads top-down: no file reaches itself through its imports, type imports
// included (scripts/import-circles.mjs; `node scripts/import-circles.mjs` lists them too).
describe('import circles', () => {
  // Parses every file of core/ (a few seconds on a busy machine).
  it('core/ has none', { timeout: 60_000 }, () => {
    const circles = importCircles('core');
    expect(circles.map(describeCircle).join('\n')).toBe('');
  });

  describe('the check', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'import-circles-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    const write = (files: Record<string, string>) => {
      for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
    };

    it('counts type imports, re-exports, import() types and import.meta.glob, and lists each circle', () => {
      write({
        'a.ts': "import type { B } from './b';\nexport type A = B;\n",
        'b.ts': "export type { A } from './a';\nexport type B = 1;\n",
        'list.ts': "export const all = import.meta.glob('./*-item.ts', { eager: true });\n",
        'one-item.ts': "export type L = typeof import('./list');\n",
        'leaf.ts': "import type { A } from './a';\nexport type Leaf = A;\n",
      });
      const circles = importCircles(dir);
      expect(circles.map((c) => c.files.map((f: string) => path.basename(f)))).toEqual([
        ['a.ts', 'b.ts'],
        ['list.ts', 'one-item.ts'],
      ]);
      expect(circles[0]!.example.map((f: string) => path.basename(f))).toEqual(['a.ts', 'b.ts', 'a.ts']);
      expect(describeCircle(circles[1]!)).toMatch(/a circle of 2 file\(s\):[\s\S]*list\.ts → .*one-item\.ts → .*list\.ts/);
    });
  });
});
