import type { JSONSchema7 } from 'json-schema';

const TAB_ID = { type: 'integer', description: 'The tab to act in (from list_tabs). Leave out for the tab the user is looking at.' } as const;
const REF = {
  type: 'string',
  minLength: 1,
  maxLength: 200,
  description: 'The element, by its reference from read_page ("e12"). A stale reference (the page changed or navigated) is refused: call read_page again.',
} as const;

/** Input schemas of the `page-actions` plugin: the single source of each tool's input type (SPEC.md §7). */
export const pageActionsSchemas = {
  read_page: {
    type: 'object',
    properties: {
      tab_id: TAB_ID,
      selector: { type: 'string', minLength: 1, maxLength: 500, description: 'CSS selector: outline only the first element it matches.' },
      ref: { ...REF, description: 'Outline only this element (a reference from an earlier read_page).' },
      max_length: { type: 'integer', minimum: 500, maximum: 100_000, default: 24_000, description: 'Cut the outline after this many characters (default 24000); the cut says how to ask for the rest.' },
    },
    additionalProperties: false,
  },
  click: {
    type: 'object',
    properties: {
      tab_id: TAB_ID,
      ref: REF,
      button: { type: 'string', enum: ['left', 'right', 'middle'], default: 'left' },
      double: { type: 'boolean', default: false, description: 'A double click.' },
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
      text: { type: 'string', maxLength: 100_000, description: 'What to type: the field is cleared first.' },
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
      value: { type: 'string', maxLength: 1000, description: "The option's value." },
      label: { type: 'string', maxLength: 1000, description: "The option's visible text (when the value is not known)." },
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
        description: 'A key name as in KeyboardEvent.key ("Enter", "Escape", "Tab", "ArrowDown", "a"), with modifiers joined by "+" ("Control+a", "Shift+Tab").',
      },
      ref: { ...REF, description: 'Focus this element first (else the key goes to the focused element).' },
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
      ref: { ...REF, description: 'Scroll this element into view; with `direction`, scroll inside it instead.' },
      direction: { type: 'string', enum: ['up', 'down', 'left', 'right'], description: 'Scroll the page (or the element) by about a screenful.' },
      amount: { type: 'number', exclusiveMinimum: 0, maximum: 20, default: 1, description: 'How many screenfuls (default 1).' },
    },
    additionalProperties: false,
  },
  navigate: {
    type: 'object',
    properties: {
      tab_id: TAB_ID,
      url: { type: 'string', minLength: 1, maxLength: 8000, description: 'The http(s) address to load in the tab.' },
      action: { type: 'string', enum: ['back', 'forward', 'reload'], description: 'Instead of an address: go back, forward, or reload.' },
    },
    additionalProperties: false,
  },
  wait_for: {
    type: 'object',
    properties: {
      tab_id: TAB_ID,
      text: { type: 'string', minLength: 1, maxLength: 1000, description: 'Wait until this text shows on the page.' },
      text_gone: { type: 'string', minLength: 1, maxLength: 1000, description: 'Wait until this text no longer shows.' },
      ref: { ...REF, description: 'Wait until this element is visible.' },
      navigation: { type: 'boolean', description: 'Wait until the tab has loaded a new page.' },
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
  hand_over: {
    type: 'object',
    properties: {
      tab_id: TAB_ID,
      reason: { type: 'string', minLength: 1, maxLength: 500, description: 'What the user should do (e.g. "Sign in to your account, then press Resume").' },
    },
    required: ['reason'],
    additionalProperties: false,
  },
} as const satisfies Record<string, JSONSchema7>;
