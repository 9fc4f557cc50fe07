import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { ToolResult } from '@/core/registry/types';
import { untrusted } from '@/core/registry/untrusted';

/**
 * Test helpers: real outlines (fixtures/*.txt, printed by the page-actions outline code from the
 * pages named in fixtures/README.md) wrapped as the results a page-reading tool gives.
 */

export function outlineFixture(name: string): string {
  return readFileSync(path.join(__dirname, 'fixtures', `${name}.txt`), 'utf8');
}

/** A page read's result as the registry stores it: the outline and the title in untrusted envelopes. */
export function pageRead(outline: string, tabId = 7, url = 'https://todo.example/', title = 'TodoMVC'): ToolResult {
  return {
    ok: true,
    output: {
      tab_id: tabId,
      url,
      title: untrusted(`title of tab ${tabId}, written by its page`, title),
      nodes: outline.split('\n').length,
      truncated: false,
      outline: untrusted(`outline of tab ${tabId} (${url})`, outline),
    },
  };
}

/** An action's result: what changed. */
export function acted(tabId = 7, url = 'https://todo.example/', changed = 'No visible change.'): ToolResult {
  return { ok: true, output: { tab_id: tabId, url, title: untrusted(`title of tab ${tabId}, written by its page`, 'TodoMVC'), changed, note: 'Done.' } };
}
