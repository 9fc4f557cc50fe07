declare module '@/core/messaging/protocol' {
  interface UiEventMap {
    /** A tool changed the workspace at `path` (Settings → Data → Workspace files refreshes). */
    workspace: { path: string };
  }
}

export {};
