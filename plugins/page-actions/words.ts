import type { ToolAnnotations } from '@/core/registry/types';

/**
 * The approval card's words for an action and whether it is sensitive (the `gate` work;
 * placeholder in the skeleton): an annotation `describe` for the tool of that name.
 */
export function cardWords(_tool: string): ToolAnnotations['forCall'] {
  return undefined;
}
