import type { Formatter } from '../report.js';
import { github } from './github.js';
import { json } from './json.js';
import { junit } from './junit.js';
import { sarif } from './sarif.js';
import { stylish } from './stylish.js';

export const FORMATS = { stylish, json, sarif, junit, github } as const satisfies Record<string, Formatter>;
export type FormatName = keyof typeof FORMATS;
