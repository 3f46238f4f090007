/** Defaults of a replay, in a module of their own so the CLI can show them without loading the replay runner. */
export const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_CONCURRENCY = 4;
