/**
 * Where a cold start's evaluation goes, module by module (`node bench/evaluation.mjs`): in the
 * `marks` build mode only (`wxt build --mode marks`, written to `.output/<target>-marks`), every
 * module's code begins with `performance.mark('sidequest:module:<name>')`. A module's body runs
 * after the bodies of the modules it imports, so the time from its mark to the next one is its own
 * top-level code (a module the bundler wraps to run at first use marks when that first use comes).
 * Other builds are untouched.
 */
import type { Plugin } from 'vite';
import { label } from './module-report.ts';

export const MODULE_MARK = 'sidequest:module:';

export function moduleMarks(): Plugin {
  let root = process.cwd();
  return {
    name: 'sidequest:module-marks',
    enforce: 'post',
    apply: (_config, env) => env.mode === 'marks',
    configResolved(config) {
      root = config.root;
    },
    transform(code, id) {
      // Script modules only (Vue files arrive here already compiled to script).
      if (id.startsWith('\0') || !/\.(m?[jt]s|vue)$/.test(id.replace(/\?.*$/, ''))) return;
      return { code: `performance.mark(${JSON.stringify(MODULE_MARK + label(id, root))});\n${code}`, map: null };
    },
  };
}
