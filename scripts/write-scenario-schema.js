#!/usr/bin/env node
/** Writes scenarios/scenario.schema.json from the zod schema of the format (run after `npm run build`). */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { scenarioJsonSchema } from '../dist/scenarios/schema.js';

const target = fileURLToPath(new URL('../scenarios/scenario.schema.json', import.meta.url));
writeFileSync(target, `${JSON.stringify(scenarioJsonSchema(), null, 2)}\n`);
console.log(`wrote ${target}`);
