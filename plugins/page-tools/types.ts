import type { PageToolSource } from './wire';

/** What the user decided for a site's page tools: `once` lasts for the current page only. */
export type SiteConsent = 'pending' | 'once' | 'always' | 'never';

/** A decision the user can give in the sidebar. */
export type ConsentDecision = 'once' | 'always' | 'never';

/** A remembered decision, as settings list them. */
export interface SitePermission {
  origin: string;
  decision: 'always' | 'never';
  /** When it was decided (ms since epoch). */
  at: number;
}

/** One page tool, as the sidebar, the popup and `list_page_tools` show it. */
export interface PageToolView {
  /** The name the page gave it. */
  name: string;
  /** The namespaced name the model calls it by. */
  modelName: string;
  description: string;
  title?: string;
  readOnly?: boolean;
  /** A declarative WebMCP form. */
  form?: boolean;
  /** Found in a same-origin child frame: its address. */
  frame?: string;
}

export interface PageToolGroupView {
  name: string;
  description: string;
  source: PageToolSource;
  /** Found in a same-origin child frame: its address. */
  frame?: string;
  tools: PageToolView[];
}

/** The page tools one tab offers now. */
export interface PageTabView {
  tabId: number;
  origin: string;
  /** The host, for display. */
  site: string;
  url: string;
  title: string;
  consent: SiteConsent;
  groups: PageToolGroupView[];
  /** Groups and tools the page offered that were dropped, and why. */
  problems: string[];
  /** Whether the model is offered these tools now (consent given and tools present). */
  offered: boolean;
  discoveryMs: number;
  updatedAt: number;
  /** Declarative form tools the agent filled that wait for the user's own submit. */
  waiting?: Array<{ tool: string }>;
}
