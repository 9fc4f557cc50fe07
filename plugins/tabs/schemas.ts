import type { JSONSchema7 } from 'json-schema';
import { READING_OPTIONS } from '@/core/extract/limit';

/** Input schemas of the `tabs` plugin: the single source of each tool's input type. */
export const tabsSchemas = {
  list_tabs: {
    type: 'object',
    properties: {
      url_pattern: { type: 'string', description: 'Regular expression the tab URL must match (case-insensitive).' },
      title_pattern: { type: 'string', description: 'Regular expression the tab title must match (case-insensitive).' },
      active: { type: 'boolean', description: 'Only the active tab of each window (true) or only inactive tabs (false).' },
      window_id: { type: 'integer', description: 'Only tabs of this window.' },
      audible: { type: 'boolean', description: 'Only tabs that are playing sound (true) or silent (false).' },
    },
    additionalProperties: false,
  },
  get_tab_content: {
    type: 'object',
    properties: {
      tab_id: { type: 'integer', description: 'The tab to read (from list_tabs).' },
      selector: { type: 'string', minLength: 1, description: 'CSS selector: read only the first element it matches. Leave out to read the main content.' },
      element_refs: {
        type: 'boolean',
        description: 'Also list the elements shown (links, buttons, form fields, headings), each with an element reference like "@k3f9q2.7", its text and a CSS selector, to point at them later: a page tool that takes an element accepts the reference.',
      },
      ...READING_OPTIONS,
    },
    required: ['tab_id'],
    additionalProperties: false,
  },
  open_tab: {
    type: 'object',
    properties: {
      url: { type: 'string', minLength: 1, description: 'The http(s) URL to open.' },
      tab_id: { type: 'integer', description: 'Navigate this existing tab instead of opening a new one.' },
      active: { type: 'boolean', default: true, description: 'Make the tab the active one (default true).' },
      window_id: { type: 'integer', description: 'Open the new tab in this window.' },
      wait_until_loaded: { type: 'boolean', default: true, description: 'Wait until the page has loaded (default true).' },
    },
    required: ['url'],
    additionalProperties: false,
  },
  close_tab: {
    type: 'object',
    properties: { tab_id: { type: 'integer', description: 'The tab to close.' } },
    required: ['tab_id'],
    additionalProperties: false,
  },
  activate_tab: {
    type: 'object',
    properties: { tab_id: { type: 'integer', description: 'The tab to show; its window is focused too.' } },
    required: ['tab_id'],
    additionalProperties: false,
  },
} as const satisfies Record<string, JSONSchema7>;
