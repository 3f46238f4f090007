/** Calls `stop` once, when a launcher (the processes from the parent up to npm) ends; nothing when the process was not started by npm. */
export function stopWhenLauncherEnds(stop: () => void, env?: NodeJS.ProcessEnv): void;
