import type { BarState } from '../protocol';
import type { PageEnv } from './agent';

/** The acting bar (the `control` work; placeholder in the skeleton). */
export function setBar(_state: BarState, _env: PageEnv, _reason?: string): void {}

/** Outlines `element` for a moment with a label naming the action ("Click", "Type"). */
export function highlight(_element: Element, _label: string): void {}
