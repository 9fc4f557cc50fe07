import type { JSONSchema7 } from 'json-schema';
import { READING_OPTIONS } from '@/core/extract/limit';

/** Input schemas of the `tabs` plugin: the single source of each tool's input type. */
export const tabsSchemas = {
  list_tabs: {
    type: 'object',
    properties: {
      url_pattern: { type: 'string', description: 'Regex the URL must match (case-insensitive).' },
      title_pattern: { type: 'string', description: 'Regex the title must match (case-insensitive).' },
      active: { type: 'boolean', description: 'Only active (true) or inactive (false) tabs.' },
      window_id: { type: 'integer', description: 'Only tabs of this window.' },
      audible: { type: 'boolean', description: 'Only tabs playing sound (true) or silent (false).' },
    },
    additionalProperties: false,
  },
  get_tab_content: {
    type: 'object',
    properties: {
      tab_id: { type: 'integer', description: 'From list_tabs.' },
      selector: { type: 'string', minLength: 1, description: 'CSS selector to read (default: the main content).' },
      element_refs: {
        type: 'boolean',
        description: 'Also list links, buttons and fields with refs for page tools.',
      },
      ...READING_OPTIONS,
    },
    required: ['tab_id'],
    additionalProperties: false,
  },
  open_tab: {
    type: 'object',
    properties: {
      url: { type: 'string', minLength: 1, description: 'http(s) URL.' },
      tab_id: { type: 'integer', description: 'Load it in this tab instead of a new one.' },
      active: { type: 'boolean', default: true, description: 'Make the tab active.' },
      window_id: { type: 'integer', description: 'Window for a new tab.' },
      wait_until_loaded: { type: 'boolean', default: true, description: 'Wait for the page to load.' },
    },
    required: ['url'],
    additionalProperties: false,
  },
  close_tab: {
    type: 'object',
    properties: { tab_id: { type: 'integer', description: 'From list_tabs.' } },
    required: ['tab_id'],
    additionalProperties: false,
  },
  activate_tab: {
    type: 'object',
    properties: { tab_id: { type: 'integer', description: 'From list_tabs.' } },
    required: ['tab_id'],
    additionalProperties: false,
  },
} as const satisfies Record<string, JSONSchema7>;
