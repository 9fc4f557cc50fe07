// axe-core in the extension's pages: its source is evaluated through the driver (the devtools
// protocol in Chromium, WebDriver BiDi in Firefox), which an extension page's CSP does not stop,
// unlike a script tag.

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ARTIFACTS } from './harness.mjs';

const require = createRequire(import.meta.url);
const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/**
 * Runs axe on the page (WCAG 2.1 A and AA rules, and axe's best practices) and returns the
 * violations: `{ id, impact, help, nodes: [target…] }`.
 */
export async function runAxe(page) {
  const loaded = await page.evaluate(() => typeof globalThis.axe === 'object');
  if (!loaded) await page.evaluate(`${AXE_SOURCE}\n;void 0`);
  return page.evaluate(async () => {
    const result = await globalThis.axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] },
      resultTypes: ['violations'],
    });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.target.join(' ')).slice(0, 5) }));
  });
}

/** Counts by impact: `{ critical, serious, moderate, minor }`. */
export function byImpact(violations) {
  const counts = { critical: 0, serious: 0, moderate: 0, minor: 0 };
  for (const v of violations) counts[v.impact] = (counts[v.impact] ?? 0) + v.nodes.length;
  return counts;
}

/** Keeps each surface's figures, and writes them to tests/artifacts/axe-<browser>.json at the end. */
export function axeReport(browserName) {
  const surfaces = {};
  return {
    add(surface, violations) {
      surfaces[surface] = { ...byImpact(violations), violations };
    },
    serious(violations) {
      return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    },
    async write() {
      await mkdir(ARTIFACTS, { recursive: true });
      const file = path.join(ARTIFACTS, `axe-${browserName}.json`);
      await writeFile(file, JSON.stringify(surfaces, null, 2));
      for (const [name, s] of Object.entries(surfaces)) {
        console.log(`axe ${browserName} ${name}: critical ${s.critical}, serious ${s.serious}, moderate ${s.moderate}, minor ${s.minor}`);
      }
      return file;
    },
  };
}
