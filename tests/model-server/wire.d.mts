// Types for the scripted servers' shared plumbing (wire.mjs).
export function estimateTokens(value: unknown): number;
