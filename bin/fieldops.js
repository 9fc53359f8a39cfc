#!/usr/bin/env node
// The fieldops executable: a shim in front of the compiled CLI (built by `npm run build`,
// which `npm ci` runs through the `prepare` script).
import { main } from '../dist/cli/main.js';

process.exitCode = await main(process.argv);
