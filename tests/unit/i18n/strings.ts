import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parse } from 'vue/compiler-sfc';

/**
 * Components whose text is still English in the template, not yet through `t()`. They were being
 * changed in parallel when the i18n work landed; convert one (see ARCHITECTURE.md, "Languages"),
 * then delete its line here: the check then holds it to the rule like every other component.
 */
export const NOT_YET_CONVERTED: readonly string[] = [
];

/** Words that stay as they are in every language: the product's name, other products' names. */
const UNTRANSLATED = /\b(Sidequest|Ollama|WebMCP)\b/g;
/** Attributes people read or hear: a literal value there is a hard-coded string. */
const READ_ATTRIBUTES = new Set(['aria-label', 'aria-description', 'aria-placeholder', 'aria-roledescription', 'title', 'placeholder', 'alt', 'label', 'what', 'hint', 'remove-label', 'running-label']);
/** Elements whose text is code, keys or URLs, not language. */
const VERBATIM = new Set(['code', 'kbd', 'pre', 'samp']);

/** Text with a letter of any script once untranslated names are taken out. */
function hasWords(text: string): boolean {
  return /\p{L}/u.test(text.replace(/&[a-z]+;/g, '').replace(UNTRANSLATED, ''));
}

export interface HardCoded {
  file: string;
  line: number;
  text: string;
}

interface TemplateNode {
  type: number;
  tag?: string;
  content?: string;
  name?: string;
  value?: { content: string };
  props?: TemplateNode[];
  children?: TemplateNode[];
  loc: { start: { line: number } };
}

/** The template's literal text and literal read attributes (`aria-label="Send"`). */
export function hardCodedStrings(file: string, source: string): HardCoded[] {
  const { descriptor } = parse(source, { filename: file });
  const ast = descriptor.template?.ast as TemplateNode | undefined;
  const found: HardCoded[] = [];
  const walk = (node: TemplateNode, verbatim: boolean) => {
    // 2: text; 1: element (its props: 6 static attribute, 7 directive).
    if (node.type === 2 && !verbatim && node.content && hasWords(node.content)) {
      found.push({ file, line: node.loc.start.line, text: node.content.trim() });
    }
    if (node.type === 1) {
      for (const prop of node.props ?? []) {
        if (prop.type === 6 && prop.name && READ_ATTRIBUTES.has(prop.name) && prop.value && hasWords(prop.value.content)) {
          found.push({ file, line: prop.loc.start.line, text: `${prop.name}="${prop.value.content}"` });
        }
      }
    }
    const inside = verbatim || (node.type === 1 && VERBATIM.has(node.tag ?? ''));
    for (const child of node.children ?? []) walk(child, inside);
  };
  if (ast) walk(ast, false);
  return found;
}

/** Every `.vue` file of the extension's pages (components and plugins), relative to `root`. */
export function vueFiles(root: string): string[] {
  const out: string[] = [];
  const visit = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) visit(path);
      else if (entry.name.endsWith('.vue')) out.push(relative(root, path).split('\\').join('/'));
    }
  };
  for (const dir of ['components', 'plugins', 'entrypoints']) visit(join(root, dir));
  return out.sort();
}

export function readSource(root: string, file: string): string {
  return readFileSync(join(root, file), 'utf8');
}
