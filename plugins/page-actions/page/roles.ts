/**
 * ARIA roles as the outline prints them: the explicit `role` attribute first (its first token the
 * outline knows), else the implicit role of the tag and its attributes (HTML-AAM, the subset a
 * model needs), plus which elements one can act on (they get a reference) and their states.
 * Import-free DOM code: it runs in the page's isolated world and under jsdom in tests.
 */

/** Roles whose accessible name comes from their content (ARIA "name from: contents"), as printed. */
export const NAME_FROM_CONTENT = new Set([
  'button',
  'link',
  'checkbox',
  'radio',
  'switch',
  'tab',
  'menuitem',
  'menuitemcheckbox',
  'menuitemradio',
  'option',
  'treeitem',
  'heading',
  'columnheader',
  'rowheader',
  'tooltip',
]);

/** Roles one acts on: an element with one of them gets a reference. */
export const ACTIONABLE_ROLES = new Set([
  'button',
  'link',
  'checkbox',
  'radio',
  'switch',
  'tab',
  'menuitem',
  'menuitemcheckbox',
  'menuitemradio',
  'option',
  'treeitem',
  'slider',
  'spinbutton',
  'textbox',
  'searchbox',
  'combobox',
  'listbox',
  'scrollbar',
  'gridcell',
]);

/** Every role the outline prints (an unknown `role` token falls through to the next, then the tag's). */
const KNOWN_ROLES = new Set([
  ...ACTIONABLE_ROLES,
  'alert',
  'alertdialog',
  'application',
  'article',
  'banner',
  'blockquote',
  'caption',
  'cell',
  'columnheader',
  'complementary',
  'contentinfo',
  'definition',
  'dialog',
  'directory',
  'document',
  'feed',
  'figure',
  'form',
  'generic',
  'grid',
  'group',
  'heading',
  'img',
  'image',
  'list',
  'listitem',
  'log',
  'main',
  'marquee',
  'math',
  'menu',
  'menubar',
  'meter',
  'navigation',
  'none',
  'note',
  'paragraph',
  'presentation',
  'progressbar',
  'radiogroup',
  'region',
  'row',
  'rowgroup',
  'rowheader',
  'search',
  'separator',
  'status',
  'table',
  'tablist',
  'tabpanel',
  'term',
  'timer',
  'toolbar',
  'tooltip',
  'tree',
  'treegrid',
]);

/** Tags whose whole subtree the outline never reads. */
export const SKIPPED_TAGS = new Set(['SCRIPT', 'STYLE', 'TEMPLATE', 'NOSCRIPT', 'HEAD', 'META', 'LINK', 'BASE', 'TITLE', 'PARAM', 'SOURCE', 'TRACK', 'WBR']);

/** Tags that break a line of text (block boxes, by the user agent's style sheet): text on either side is two words. */
export const BLOCK_TAGS = new Set([
  'ADDRESS', 'ARTICLE', 'ASIDE', 'BLOCKQUOTE', 'BR', 'DD', 'DETAILS', 'DIALOG', 'DIV', 'DL', 'DT', 'FIELDSET', 'FIGCAPTION', 'FIGURE',
  'FOOTER', 'FORM', 'H1', 'H2', 'H3', 'H4', 'H5', 'H6', 'HEADER', 'HGROUP', 'HR', 'LI', 'MAIN', 'MENU', 'NAV', 'OL', 'P', 'PRE',
  'SECTION', 'SUMMARY', 'TABLE', 'TBODY', 'TD', 'TFOOT', 'TH', 'THEAD', 'TR', 'UL', 'CAPTION', 'LEGEND', 'OPTION', 'IMG', 'INPUT',
  'BUTTON', 'SELECT', 'TEXTAREA', 'IFRAME', 'VIDEO', 'AUDIO', 'CANVAS', 'SEARCH',
]);

const INPUT_ROLES: Record<string, string> = {
  button: 'button',
  submit: 'button',
  reset: 'button',
  image: 'button',
  file: 'button',
  color: 'button',
  checkbox: 'checkbox',
  radio: 'radio',
  range: 'slider',
  number: 'spinbutton',
  search: 'searchbox',
};

/** Landmarks that `<header>`/`<footer>` inside them are not banner/contentinfo of (HTML-AAM). */
const SECTIONING = new Set(['ARTICLE', 'ASIDE', 'MAIN', 'NAV', 'SECTION']);

/** True for an element with an accessible name given by its author (what makes form/section landmarks). */
function hasAuthorName(element: Element): boolean {
  return Boolean(element.getAttribute('aria-label')?.trim() || element.getAttribute('aria-labelledby')?.trim() || element.getAttribute('title')?.trim());
}

function insideSectioning(element: Element): boolean {
  for (let node = element.parentElement, i = 0; node && i < 200; node = node.parentElement, i++) {
    if (SECTIONING.has(node.tagName)) return true;
  }
  return false;
}

/** The implicit role of an element (no `role` attribute), '' for none (generic). */
export function implicitRole(element: Element): string {
  const tag = element.tagName;
  switch (tag) {
    case 'A':
    case 'AREA':
      return element.hasAttribute('href') ? 'link' : '';
    case 'BUTTON':
      return 'button';
    case 'INPUT': {
      const type = (element.getAttribute('type') ?? '').toLowerCase();
      if (type === 'hidden') return '';
      if (element.hasAttribute('list') && !INPUT_ROLES[type]) return 'combobox';
      return INPUT_ROLES[type] ?? 'textbox';
    }
    case 'SELECT': {
      const select = element as HTMLSelectElement;
      return select.multiple || select.size > 1 ? 'listbox' : 'combobox';
    }
    case 'TEXTAREA':
      return 'textbox';
    case 'OPTION':
      return 'option';
    case 'OPTGROUP':
    case 'FIELDSET':
    case 'DETAILS':
      return 'group';
    case 'SUMMARY':
      return 'button';
    case 'H1':
    case 'H2':
    case 'H3':
    case 'H4':
    case 'H5':
    case 'H6':
      return 'heading';
    case 'NAV':
      return 'navigation';
    case 'MAIN':
      return 'main';
    case 'ASIDE':
      return 'complementary';
    case 'SEARCH':
      return 'search';
    case 'HEADER':
      return insideSectioning(element) ? '' : 'banner';
    case 'FOOTER':
      return insideSectioning(element) ? '' : 'contentinfo';
    case 'FORM':
      return hasAuthorName(element) ? 'form' : '';
    case 'SECTION':
      return hasAuthorName(element) ? 'region' : '';
    case 'ARTICLE':
      return 'article';
    case 'UL':
    case 'OL':
    case 'MENU':
      return 'list';
    case 'LI':
      return 'listitem';
    case 'P':
      return 'paragraph';
    case 'BLOCKQUOTE':
      return 'blockquote';
    case 'TABLE':
      return 'table';
    case 'TR':
      return 'row';
    case 'TD':
      return 'cell';
    case 'TH':
      return (element.getAttribute('scope') ?? '').toLowerCase().startsWith('row') ? 'rowheader' : 'columnheader';
    case 'CAPTION':
      return 'caption';
    case 'IMG': {
      const alt = element.getAttribute('alt');
      if (alt !== null && alt.trim() === '') return element.hasAttribute('title') ? 'img' : '';
      return 'img';
    }
    case 'FIGURE':
      return 'figure';
    case 'DIALOG':
      return 'dialog';
    case 'PROGRESS':
      return 'progressbar';
    case 'METER':
      return 'meter';
    case 'OUTPUT':
      return 'status';
    case 'HR':
      return 'separator';
    case 'DT':
      return 'term';
    case 'DD':
      return 'definition';
    case 'IFRAME':
      return 'iframe';
    default:
      return isEditingHost(element) ? 'textbox' : '';
  }
}

/** An element the user can type into as a rich text field (the host of a contenteditable region). */
export function isEditingHost(element: Element): boolean {
  const value = element.getAttribute('contenteditable');
  if (value === null) return false;
  const v = value.toLowerCase();
  if (v !== '' && v !== 'true' && v !== 'plaintext-only') return false;
  const parent = element.parentElement;
  // Only the host: inside an editable region the children are its content, not fields of their own.
  return !parent || !(parent as HTMLElement).isContentEditable;
}

/**
 * The role the outline prints: the first known token of `role`, else the implicit role; '' for a
 * generic element (a wrapper the outline flattens). `none`/`presentation` are generic too.
 */
export function roleOf(element: Element): string {
  const explicit = element.getAttribute('role');
  if (explicit) {
    for (const token of explicit.toLowerCase().split(/\s+/)) {
      if (!KNOWN_ROLES.has(token)) continue;
      if (token === 'none' || token === 'presentation' || token === 'generic') return '';
      return token === 'image' ? 'img' : token;
    }
  }
  return implicitRole(element);
}

/** True for an element one can act on: it gets a reference in the outline. */
export function isActionable(element: Element, role: string): boolean {
  if (ACTIONABLE_ROLES.has(role)) {
    // A <select>'s own options are chosen through the select (select_option), not clicked.
    if (element.tagName === 'OPTION') return false;
    return true;
  }
  switch (element.tagName) {
    case 'A':
      return element.hasAttribute('href');
    case 'BUTTON':
    case 'SELECT':
    case 'TEXTAREA':
    case 'SUMMARY':
      return true;
    case 'INPUT':
      return (element.getAttribute('type') ?? '').toLowerCase() !== 'hidden';
    default:
      break;
  }
  if (element.hasAttribute('onclick')) return true;
  const tabindex = element.getAttribute('tabindex');
  if (tabindex !== null && Number.parseInt(tabindex, 10) >= 0) return true;
  return role === 'textbox' || isEditingHost(element);
}

function aria(element: Element, name: string): string | null {
  const value = element.getAttribute(name);
  return value === null ? null : value.trim().toLowerCase();
}

/** The states the outline prints after the name, in Playwright's order: `[checked]`, `[disabled]`, `[level=2]`… */
export function statesOf(element: Element, role: string): string {
  let out = '';
  const tag = element.tagName;
  const input = element as HTMLInputElement;
  if (role === 'textbox' && (tag === 'TEXTAREA' || aria(element, 'aria-multiline') === 'true')) out += ' [multiline]';
  if (role === 'checkbox' || role === 'radio' || role === 'switch' || role === 'menuitemcheckbox' || role === 'menuitemradio') {
    const checked = aria(element, 'aria-checked');
    if (tag === 'INPUT' && (input.type === 'checkbox' || input.type === 'radio')) {
      if (input.indeterminate) out += ' [checked=mixed]';
      else if (input.checked) out += ' [checked]';
    } else if (checked === 'true') out += ' [checked]';
    else if (checked === 'mixed') out += ' [checked=mixed]';
  }
  if (isDisabled(element)) out += ' [disabled]';
  const expanded = tag === 'SUMMARY' ? (element.parentElement?.tagName === 'DETAILS' && (element.parentElement as HTMLDetailsElement).open ? 'true' : null) : aria(element, 'aria-expanded');
  if (expanded === 'true') out += ' [expanded]';
  if (role === 'heading') {
    const level = Number.parseInt(element.getAttribute('aria-level') ?? '', 10);
    const fromTag = /^H([1-6])$/.exec(tag);
    const n = level > 0 && level < 100 ? level : fromTag ? Number(fromTag[1]) : 2;
    out += ` [level=${n}]`;
  }
  const pressed = aria(element, 'aria-pressed');
  if (pressed === 'true') out += ' [pressed]';
  else if (pressed === 'mixed') out += ' [pressed=mixed]';
  if (aria(element, 'aria-selected') === 'true' || (tag === 'OPTION' && (element as HTMLOptionElement).selected)) out += ' [selected]';
  if ((FORM_CONTROLS.has(tag) && input.required === true) || aria(element, 'aria-required') === 'true') out += ' [required]';
  return out;
}

const FORM_CONTROLS = new Set(['BUTTON', 'INPUT', 'SELECT', 'TEXTAREA', 'OPTION', 'OPTGROUP', 'FIELDSET']);

/** Disabled: the native attribute (a disabled fieldset included) or aria-disabled. */
export function isDisabled(element: Element): boolean {
  if (aria(element, 'aria-disabled') === 'true') return true;
  if (!FORM_CONTROLS.has(element.tagName)) return false;
  try {
    return element.matches(':disabled');
  } catch {
    return (element as HTMLButtonElement).disabled === true;
  }
}
