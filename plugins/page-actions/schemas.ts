import type { JSONSchema7 } from 'json-schema';

const TAB_ID = { type: 'integer', description: 'From list_tabs; default: the user\'s tab.' } as const;
const REF = {
  type: 'string',
  minLength: 1,
  maxLength: 200,
  description: 'From read_page ("e12"); stale after a navigation.',
} as const;

/** A point of the tab's last screenshot (`click_at`, `hover_at`). */
const POINT = {
  x: { type: 'number', minimum: 0, maximum: 10_000, description: 'Pixels of the last screenshot, from the left.' },
  y: { type: 'number', minimum: 0, maximum: 10_000, description: 'From the top.' },
} as const;

/** Input schemas of the `page-actions` plugin: the single source of each tool's input type (SPEC.md §7). */
export const pageActionsSchemas = {
  read_page: {
    type: 'object',
    properties: {
      tab_id: TAB_ID,
      selector: { type: 'string', minLength: 1, maxLength: 500, description: 'CSS selector: outline only its first match.' },
      ref: { ...REF, description: 'Outline only this element.' },
      max_length: { type: 'integer', minimum: 500, maximum: 100_000, default: 24_000, description: 'Most characters of outline.' },
      find: { type: 'string', minLength: 1, maxLength: 200, description: 'Only lines containing this text, with their ancestors.' },
    },
    additionalProperties: false,
  },
  click: {
    type: 'object',
    properties: {
      tab_id: TAB_ID,
      ref: REF,
      button: { type: 'string', enum: ['left', 'right', 'middle'], default: 'left' },
      double: { type: 'boolean', default: false },
      modifiers: { type: 'array', items: { type: 'string', enum: ['Alt', 'Control', 'Meta', 'Shift'] }, maxItems: 4 },
    },
    required: ['ref'],
    additionalProperties: false,
  },
  fill: {
    type: 'object',
    properties: {
      tab_id: TAB_ID,
      ref: REF,
      text: { type: 'string', maxLength: 100_000 },
      submit: { type: 'boolean', default: false, description: 'Press Enter after typing.' },
    },
    required: ['ref', 'text'],
    additionalProperties: false,
  },
  select_option: {
    type: 'object',
    properties: {
      tab_id: TAB_ID,
      ref: REF,
      value: { type: 'string', maxLength: 1000 },
      label: { type: 'string', maxLength: 1000, description: 'Visible text, if the value is unknown.' },
      values: { type: 'array', items: { type: 'string', maxLength: 1000 }, minItems: 1, maxItems: 100, description: 'Multi-select: exactly these (values or labels).' },
    },
    required: ['ref'],
    additionalProperties: false,
  },
  press_key: {
    type: 'object',
    properties: {
      tab_id: TAB_ID,
      key: {
        type: 'string',
        minLength: 1,
        maxLength: 60,
        description: 'KeyboardEvent.key name, modifiers joined by "+" ("Enter", "Control+a").',
      },
      ref: { ...REF, description: 'Focus this element first.' },
    },
    required: ['key'],
    additionalProperties: false,
  },
  hover: {
    type: 'object',
    properties: { tab_id: TAB_ID, ref: REF },
    required: ['ref'],
    additionalProperties: false,
  },
  scroll: {
    type: 'object',
    properties: {
      tab_id: TAB_ID,
      ref: { ...REF, description: 'Bring into view; with direction, scroll inside it.' },
      direction: { type: 'string', enum: ['up', 'down', 'left', 'right'] },
      amount: { type: 'number', exclusiveMinimum: 0, maximum: 20, default: 1, description: 'Screenfuls.' },
    },
    additionalProperties: false,
  },
  navigate: {
    type: 'object',
    properties: {
      tab_id: TAB_ID,
      url: { type: 'string', minLength: 1, maxLength: 8000, description: 'http(s) URL.' },
      action: { type: 'string', enum: ['back', 'forward', 'reload'], description: 'Instead of url.' },
    },
    additionalProperties: false,
  },
  wait_for: {
    type: 'object',
    properties: {
      tab_id: TAB_ID,
      text: { type: 'string', minLength: 1, maxLength: 1000, description: 'Text that should appear.' },
      text_gone: { type: 'string', minLength: 1, maxLength: 1000, description: 'Text that should disappear.' },
      ref: { ...REF, description: 'Element that should be visible.' },
      navigation: { type: 'boolean', description: 'A new page loads.' },
      timeout_ms: { type: 'integer', minimum: 100, maximum: 60_000, default: 10_000 },
    },
    additionalProperties: false,
  },
  screenshot: {
    type: 'object',
    properties: {
      tab_id: TAB_ID,
      ref: { ...REF, description: 'Crop to this element.' },
    },
    additionalProperties: false,
  },
  drag: {
    type: 'object',
    properties: {
      tab_id: TAB_ID,
      ref: { ...REF, description: 'What to drag.' },
      to_ref: { ...REF, description: 'Drop onto this element.' },
      dx: { type: 'number', minimum: -10_000, maximum: 10_000, description: 'Or drag by this many CSS px right.' },
      dy: { type: 'number', minimum: -10_000, maximum: 10_000, description: 'And down.' },
    },
    required: ['ref'],
    additionalProperties: false,
  },
  select_text: {
    type: 'object',
    properties: {
      tab_id: TAB_ID,
      ref: REF,
      text: { type: 'string', minLength: 1, maxLength: 10_000, description: 'Select its first occurrence.' },
      start: { type: 'integer', minimum: 0, description: 'Or a range: character offsets in the element\'s text.' },
      end: { type: 'integer', minimum: 0 },
    },
    required: ['ref'],
    additionalProperties: false,
  },
  click_at: {
    type: 'object',
    properties: {
      tab_id: TAB_ID,
      ...POINT,
      button: { type: 'string', enum: ['left', 'right', 'middle'], default: 'left' },
      double: { type: 'boolean', default: false },
    },
    required: ['x', 'y'],
    additionalProperties: false,
  },
  hover_at: {
    type: 'object',
    properties: {
      tab_id: TAB_ID,
      ...POINT,
    },
    required: ['x', 'y'],
    additionalProperties: false,
  },
  clipboard: {
    type: 'object',
    properties: {
      tab_id: TAB_ID,
      action: { type: 'string', enum: ['copy', 'cut', 'paste'] },
      ref: { ...REF, description: 'Paste: where (required); copy/cut: the field whose selection.' },
      text: { type: 'string', maxLength: 100_000, description: 'Paste: the text.' },
    },
    required: ['action'],
    additionalProperties: false,
  },
  upload_file: {
    type: 'object',
    properties: {
      tab_id: TAB_ID,
      ref: { ...REF, description: 'A file input (or a drop zone).' },
      path: { type: 'string', minLength: 1, maxLength: 1024, description: 'Workspace file ("/docs/cv.pdf").' },
    },
    required: ['ref', 'path'],
    additionalProperties: false,
  },
  dialog: {
    type: 'object',
    properties: {
      tab_id: TAB_ID,
      accept: { type: 'boolean', description: 'OK (true) or Cancel (false).' },
      text: { type: 'string', maxLength: 10_000, description: 'A prompt\'s answer.' },
    },
    required: ['accept'],
    additionalProperties: false,
  },
  hand_over: {
    type: 'object',
    properties: {
      tab_id: TAB_ID,
      reason: { type: 'string', minLength: 1, maxLength: 500, description: 'What the user should do (shown on the page).' },
    },
    required: ['reason'],
    additionalProperties: false,
  },
} as const satisfies Record<string, JSONSchema7>;
