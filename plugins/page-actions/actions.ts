import type { ToolDefinition } from '@/core/registry/types';

/** read_page and the actions (the `tools` work; placeholder in the skeleton). */
export const actionTools: ToolDefinition[] = [];
