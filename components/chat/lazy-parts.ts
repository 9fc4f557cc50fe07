import { defineAsyncComponent, type Component } from 'vue';

/**
 * Parts of the sidebar that are not in its first load: each is fetched when first shown (or when
 * `preloadAnswerParts` asks), then every later instance renders at once. Defined here, once per
 * page, not in a component's `<script setup>`, which would make a new wrapper (and an empty first
 * render) for every instance.
 */

/** markdown-it and DOMPurify, with the view that renders an answer. */
export const BaseMarkdown = defineAsyncComponent(() => import('@/components/base/BaseMarkdown.vue'));
/** An answer's Usage · Trace row. */
export const ChatMessageDetails = defineAsyncComponent(() => import('./ChatMessageDetails.vue'));
/** An ask of the approval gate (its buttons arm 1 s after it shows, core/ui/arming.ts). */
export const ChatApprovalCard = defineAsyncComponent(() => import('./ChatApprovalCard.vue'));
/** The conversation list, opened from the header. */
export const ChatConversationList = defineAsyncComponent(() => import('./ChatConversationList.vue'));

/**
 * Starts loading what answers need, so that a conversation's messages, which arrive from the
 * background after the page mounts, find them loaded. Vue's async wrapper keeps what its loader
 * gave (`__asyncLoader`); where that is missing, the module is at least fetched.
 */
export function preloadAnswerParts(): void {
  for (const [part, load] of [
    [BaseMarkdown, () => import('@/components/base/BaseMarkdown.vue')],
    [ChatMessageDetails, () => import('./ChatMessageDetails.vue')],
  ] as const) {
    const loader = (part as Component & { __asyncLoader?: () => Promise<unknown> }).__asyncLoader;
    void (loader ? loader() : load()).catch((error: unknown) => console.error('[sidequest] a part of the sidebar did not load:', error));
  }
}
