/** Where the scenario files shipped with the package are: the same two folders up from src/scenarios and dist/scenarios. */
import { fileURLToPath } from 'node:url';

/** The folder of the shipped scenarios and their JSON Schema (scenario.schema.json), for `replay([SHIPPED_SCENARIOS], ...)`. */
export const SHIPPED_SCENARIOS = fileURLToPath(new URL('../../scenarios/', import.meta.url));
