#!/usr/bin/env node
import { buildProgram } from '../dist/cli.js';

buildProgram()
  .parseAsync(process.argv)
  .catch((err) => {
    console.error(err instanceof Error ? err.message : String(err));
    process.exit(1);
  });
