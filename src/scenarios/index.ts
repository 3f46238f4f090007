/** Scenario replays as a library: load scenario files and replay them against a sandbox. */
export { replay, replayScenarios, ReplayCouldNotRun } from './replay.js';
export { DEFAULT_CONCURRENCY, DEFAULT_TIMEOUT_MS } from './defaults.js';
export type { ReplayOptions, ReplayReport } from './replay.js';
export { findScenarioFiles, loadScenarioFile, parseScenario, ScenarioFileError } from './load.js';
export type { LoadedScenario, Problem } from './load.js';
export { runScenario, failureSummary } from './run-scenario.js';
export type { FileResult, StepResult, ReplayTarget, ScenarioRunOptions } from './run-scenario.js';
export type { AssertionResult, Outcome } from './assertions.js';
export { formatFileResult, formatSummary } from './report-human.js';
export { junitXml } from './report-junit.js';
export { describeWait } from './waits.js';
export type { ReplayWait } from './waits.js';
export { scenarioJsonSchema, scenarioSchema } from './schema.js';
export { SHIPPED_SCENARIOS } from './shipped.js';
export type { Scenario, Step, StepKind, Expectations, Matcher } from './schema.js';
