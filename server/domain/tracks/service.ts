import type { Clock } from '../../db/time.js';
import type { Store } from '../ports.js';

/** Issue 27 (step 0 placeholder): filled in by its area. Knows no HTTP. */
export class TrackService {
  constructor(protected readonly deps: { store: Store; clock: Clock }) {}
}
