/**
 * Concurrent reads of one key share one database read, without ever answering a caller from
 * a read that began before the caller asked.
 *
 * Contract: the read that answers a call starts after the call was made. Calls are gathered
 * until the check phase of the event loop (`setImmediate`), so the requests parsed from all
 * the sockets that were ready in one loop iteration share one read, which starts after every
 * one of them arrived. A call made while a read is in flight never joins it (that read may
 * have taken its snapshot before a write the caller has already seen acknowledged); it joins
 * the next gathering. So a write committed before a request arrives is always visible to it.
 *
 * At most `maxInFlight` reads of one key run at once; callers beyond that gather into one
 * batch that starts in the check phase after a read settles, so a slow database sees a
 * bounded queue.
 */
export class CoalescedReads<V> {
  private readonly keys = new Map<string, KeyState<V>>();

  constructor(private readonly maxInFlight = 1) {}

  /** `read` performs the read; every `read` given for one key must be equivalent. */
  get(key: string, read: () => V | Promise<V>): Promise<V> {
    let state = this.keys.get(key);
    if (!state) {
      state = { gathering: null, scheduled: false, inFlight: 0 };
      this.keys.set(key, state);
    }
    if (!state.gathering) {
      state.gathering = batch(read);
      if (state.inFlight < this.maxInFlight) this.schedule(key, state);
    }
    return state.gathering.promise;
  }

  private schedule(key: string, state: KeyState<V>): void {
    state.scheduled = true;
    setImmediate(() => {
      state.scheduled = false;
      if (state.inFlight < this.maxInFlight) this.start(key, state);
    });
  }

  private start(key: string, state: KeyState<V>): void {
    const current = state.gathering!;
    state.gathering = null;
    state.inFlight++;
    const settled = () => {
      state.inFlight--;
      // Gather the rest of this loop iteration's callers too before starting the next read.
      if (state.gathering && !state.scheduled) this.schedule(key, state);
      else if (!state.gathering && state.inFlight === 0) this.keys.delete(key);
    };
    (async () => current.read())().then(
      (value) => {
        current.resolve(value);
        settled();
      },
      (error: unknown) => {
        current.reject(error);
        settled();
      },
    );
  }
}

interface KeyState<V> {
  /** Callers waiting for a read that has not started yet. */
  gathering: Batch<V> | null;
  /** Whether the gathering batch starts in this loop iteration's check phase. */
  scheduled: boolean;
  inFlight: number;
}

interface Batch<V> {
  promise: Promise<V>;
  read: () => V | Promise<V>;
  resolve(value: V): void;
  reject(error: unknown): void;
}

function batch<V>(read: () => V | Promise<V>): Batch<V> {
  let resolve!: (value: V) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<V>((ok, fail) => {
    resolve = ok;
    reject = fail;
  });
  return { promise, read, resolve, reject };
}
