declare module '@/core/messaging/protocol' {
  interface ProtocolMap {
    /** How many tabs the conversation's agent left open that Close would close. */
    'tabs/agentTabs'(data: { conversationId: string }): { left: number };
    /** Close the agent's tabs: closes those tabs (never the user's, nor the sidebar's own tab). */
    'tabs/closeAgentTabs'(data: { conversationId: string }): { closed: number };
    /** Keep them: those tabs stay open, and are not offered for closing again. */
    'tabs/keepAgentTabs'(data: { conversationId: string }): void;
  }
  interface UiEventMap {
    /** The tabs a conversation's agent left open changed (one opened, closed, kept). */
    'agent-tabs': { conversationId: string; left: number };
  }
}

export {};
