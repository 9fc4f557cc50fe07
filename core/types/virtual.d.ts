declare module 'virtual:tool-validators' {
  import type { AjvValidateFunction } from '@/core/registry/validation';
  /** ajv validators compiled at build time from plugins/schemas.ts, by tool name. */
  export const validators: Record<string, AjvValidateFunction>;
}
