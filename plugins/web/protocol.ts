import type { SearchSettingsView, SearchTestInput, SearchTestResult } from './search/service';
import type { SearchSettingsInput } from './search/settings';

declare module '@/core/messaging/protocol' {
  interface ProtocolMap {
    /** Search engine settings (Settings → Search engines); keys are never sent, only whether they are set. */
    getSearchSettings(): SearchSettingsView;
    /** Validates and saves; a key left undefined keeps the saved one, '' removes it. */
    saveSearchSettings(data: SearchSettingsInput): SearchSettingsView;
    /** Runs a real query with the form's engine and keys (saved keys where none is typed). */
    testSearch(data: SearchTestInput): SearchTestResult;
  }
}

export {};
