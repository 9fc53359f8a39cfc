/**
 * A job run every `intervalSeconds` in the background (the patrol sweep, the file sweeper, the
 * sync backfill and retention): never two passes at once, a failed pass logged and retried at
 * the next tick, and `stop` waiting for a pass under way. The timer does not keep the process up.
 */
export class PeriodicJob {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;

  constructor(
    private readonly pass: () => Promise<unknown>,
    private readonly failed: (error: unknown) => void,
  ) {}

  /** `firstPassNow`: also run once at once (crash recovery, a first scan). 0 seconds turns it off. */
  start(intervalSeconds: number, firstPassNow: boolean): void {
    if (intervalSeconds <= 0 || this.timer) return;
    const tick = () => {
      if (this.running) return;
      this.running = this.pass()
        .catch(this.failed)
        .finally(() => (this.running = null));
    };
    this.timer = setInterval(tick, intervalSeconds * 1000);
    this.timer.unref();
    if (firstPassNow) tick();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }
}
