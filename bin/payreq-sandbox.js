#!/usr/bin/env node
import { main } from '../dist/cli.js';

void main(process.argv);
