import type { FromSchema } from 'json-schema-to-ts';
import { defineTool } from '@/core/registry/registry';
import type { ToolDefinition } from '@/core/registry/types';
import { ACTION_TIMEOUT_MS, ACTS } from './actions';
import { begin, runAction, type ActionResult, type Context } from './flow';
import { pageActionsSchemas as schemas } from './schemas';
import type { PageActionsService } from './service';
import { lastShot } from './shots';
import { cardWords } from './words';

/**
 * The tools that point (issue 41): `drag`, and `click_at`/`hover_at` at a point of the last
 * screenshot (`shots.ts` keeps its size per tab; `page/pointer.ts` acts). Found through
 * `find_tools`, not always offered.
 */

type In<K extends keyof typeof schemas> = FromSchema<(typeof schemas)[K], { keepDefaultedPropertiesOptional: true }>;

const AFTER = 'Returns what changed.';

export const drag = defineTool<In<'drag'>, ActionResult, PageActionsService>({
  name: 'drag',
  description: `Drag an element onto another (to_ref) or by dx, dy CSS pixels, as a person drags with the mouse (sortable lists, sliders, drop zones). ${AFTER}`,
  inputSchema: schemas.drag,
  timeoutMs: ACTION_TIMEOUT_MS,
  annotations: { ...ACTS, describe: cardWords('drag') },
  async execute(input, context: Context) {
    if (!input.to_ref && !input.dx && !input.dy) throw new Error('Say where to drag: to_ref (an element), or dx/dy (CSS pixels).');
    if (input.to_ref && (input.dx || input.dy)) throw new Error('Give to_ref or dx/dy, not both.');
    const tab = await begin(input.tab_id, context);
    const request = { op: 'drag' as const, ref: input.ref, ...(input.to_ref ? { toRef: input.to_ref } : { dx: input.dx ?? 0, dy: input.dy ?? 0 }) };
    return runAction(tab, request, context, 'The drag', true);
  },
});

export const clickAt = defineTool<In<'click_at'>, ActionResult, PageActionsService>({
  name: 'click_at',
  description: `Click at a point given in pixels of this tab's last screenshot (for canvas, charts and shapes without a ref). ${AFTER}`,
  inputSchema: schemas.click_at,
  timeoutMs: ACTION_TIMEOUT_MS,
  annotations: { ...ACTS, describe: cardWords('click_at') },
  async execute(input, context: Context) {
    const tab = await begin(input.tab_id, context);
    const shot = lastShot(tab.id);
    const request = { op: 'clickAt' as const, x: input.x, y: input.y, ...(shot ? { shot } : {}), ...(input.button ? { button: input.button } : {}), ...(input.double ? { double: true } : {}) };
    return runAction(tab, request, context, 'The click', true);
  },
});

export const hoverAt = defineTool<In<'hover_at'>, ActionResult, PageActionsService>({
  name: 'hover_at',
  description: `Move the pointer to a point given in pixels of this tab's last screenshot (for tooltips on charts and shapes). ${AFTER}`,
  inputSchema: schemas.hover_at,
  timeoutMs: ACTION_TIMEOUT_MS,
  annotations: { ...ACTS, describe: cardWords('hover_at') },
  async execute(input, context: Context) {
    const tab = await begin(input.tab_id, context);
    const shot = lastShot(tab.id);
    return runAction(tab, { op: 'hoverAt', x: input.x, y: input.y, ...(shot ? { shot } : {}) }, context, 'Pointing', false);
  },
});

export const pointerTools: ToolDefinition[] = [drag, clickAt, hoverAt];
