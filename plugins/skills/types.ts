/**
 * What a skill is (issue 21, SPEC §8): a finished run's tool calls kept as steps, with their
 * arguments turned into templates, so the run can be replayed without the model. Plain data
 * only: skills travel in messages, in IndexedDB (`ctx.storage.collection`) and in export files.
 */

/** A value a step's input may take, filled in at replay (`template.ts` fills, `locate.ts` finds). */
export type Template =
  | string // may hold `{param}` placeholders ("{{" and "}}" for literal braces)
  | number
  | boolean
  | null
  | Template[]
  | { [key: string]: Template }
  | ElementLocatorTemplate
  | TabTemplate
  | FromResultTemplate;

/**
 * An element reference (a value an earlier result printed, e.g. `[ref=e7]` in an outline line)
 * replaced by what finds the element again after a reload: the line it was printed on (role and
 * accessible name) with the reference cut out, and the lines around it.
 */
export interface ElementLocatorTemplate {
  $element: {
    /** The step whose result printed the reference (0-based); at replay, that step's new result is searched. */
    step: number;
    /**
     * The printed line with the reference replaced by `\u0000`, after the part of the result it
     * came from (`locate.ts` `resultText`): `outline| - button "Add" [ref=\u0000]`.
     */
    line: string;
    /** Up to 3 lines before and after it, nearest first: they break ties between equal lines. */
    before: string[];
    after: string[];
    /** Which of the equal lines it was (0-based), when the context does not tell them apart. */
    index: number;
    /**
     * When the result held other lines equal to `line`: the context line that told this one apart
     * (`before[n]` or `after[n]`); at replay a line without it is not this element. Absent: none needed.
     */
    anchor?: ['before' | 'after', number];
  };
}

/** A tab id replaced by where it comes from. */
export interface TabTemplate {
  $tab:
    | { user: true } // the tab the user looks at when the skill runs
    | { step: number; path: Array<string | number> } // the id an earlier step's result gave (a tab it opened)
    | { url: string }; // the first open tab whose address starts with this
}

/** Any other value an earlier result gave (an id, a file name the run created). */
export interface FromResultTemplate {
  $from: { step: number; path: Array<string | number> };
}

/** What a result looked like, to tell an unexpected result at replay: JSON types by path. */
export type ResultShape =
  | 'string'
  | 'number'
  | 'boolean'
  | 'null'
  | 'array'
  | { [key: string]: ResultShape };

export interface SkillStep {
  /** The tool's name as the registry knows it; a page's tool is `page*_<name>` (its tab: `tab`, see template.ts). */
  tool: string;
  input: Template;
  /** The shape of the result when the skill was made (top-level keys and types); absent: not checked. */
  shape?: ResultShape;
  /**
   * A page's tool (`tool` is `page*_<name>`, the tab id left out): the tab whose page tool to
   * call, found again at replay (`fill.ts`); absent: the user's tab.
   */
  tab?: TabTemplate;
}

export interface SkillParam {
  /** Used as `{name}` in templates and `name=value` after `/skill`; `[a-z][a-z0-9_]*`. */
  name: string;
  /** The value it had in the run the skill came from (the default when none is given). */
  example: string;
}

/** When a scheduled skill runs (all times in the schedule's time zone). */
export type ScheduleWhen =
  | { kind: 'once'; at: string } // local date-time "2026-12-07T09:00"
  | { kind: 'daily'; time: string } // "09:00"
  | { kind: 'weekly'; day: number; time: string } // day 0 = Sunday
  | { kind: 'hours'; every: number }; // every N hours from `Schedule.since`

/** What a scheduled run may do without asking: the tools, each on a site ('' = a tool without a site). */
export interface Grant {
  tool: string;
  site: string;
  /**
   * An outside tool's definition when it was granted (`definitionPin`, set by the scheduler, never
   * taken from the form): the grant does not hold for a tool whose words changed since.
   */
  pin?: string;
}

export interface Schedule {
  when: ScheduleWhen;
  /** IANA time zone the times are in (the user's when scheduling). */
  timeZone: string;
  /** The arguments of each scheduled run. */
  args: Record<string, string>;
  /** Ticked ahead in the schedule form; anything else waits for a yes, with a notification. */
  grants: Grant[];
  /** When the schedule was set (ms): `hours` counts from it. */
  since: number;
  /** The next time it is due (ms), as computed when it was set or last ran. */
  next?: number;
  /** When it last ran (ms). */
  lastRun?: number;
}

export interface Skill {
  /** Random id. */
  id: string;
  /** What `/name` calls it: `[a-z0-9][a-z0-9-]*`, unique. */
  name: string;
  description: string;
  /** The user's message the run came from, with `{param}` placeholders: the model gets it on a hand-over. */
  instruction: string;
  params: SkillParam[];
  steps: SkillStep[];
  createdAt: number;
  updatedAt: number;
  /** The conversation it was made from. */
  fromConversation?: string;
  schedule?: Schedule;
}

/** The export file (`schema.ts` checks it with zod): versioned. */
export interface SkillFile {
  format: 'sidequest-skills';
  version: 1;
  skills: Skill[];
}
