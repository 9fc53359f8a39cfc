/**
 * The server's crash points for the kill tests, armed by FIELDOPS_CRASH_POINTS (the mechanism:
 * sync/testing/crash-points.ts).
 */
import { crashPointsArmedBy } from '../../sync/testing/crash-points.js';

export const crashPoint = crashPointsArmedBy('FIELDOPS_CRASH_POINTS');
