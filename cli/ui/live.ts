/**
 * Mounts an Ink view on a terminal stream and re-renders it with new props. Ink and React are
 * loaded only here, when a terminal is there to show something (piped runs never load them).
 */
import type { ComponentType } from 'react';
import type { CommandContext } from '../context.js';

const Nothing = () => null;

export interface LiveView<P> {
  update(props: P): void;
  stop(): Promise<void>;
}

export async function mountLive<P extends object>(stream: NodeJS.WritableStream, load: () => Promise<ComponentType<P>>, props: P): Promise<LiveView<P>> {
  const [{ render }, { createElement }, Component] = await Promise.all([import('ink'), import('react'), load()]);
  const sized = withUsableColumns(stream as NodeJS.WriteStream);
  const instance = render(createElement(Component, props), {
    stdout: sized,
    stderr: sized,
    patchConsole: false,
    exitOnCtrlC: false,
  });
  return {
    update: (next) => instance.rerender(createElement(Component, next)),
    // The live view is scaffolding: the command prints its final report in its place. NOTE:
    // unmount renders the tree once more, so the tree is emptied first (clear() alone would be
    // undone by that last render), and given a moment: React commits and Ink's throttled
    // writer flushes asynchronously.
    stop: async () => {
      const settle = () => new Promise((resolve) => setTimeout(resolve, 60));
      await settle();
      instance.rerender(createElement(Nothing));
      await settle();
      instance.unmount();
      await instance.waitUntilExit().catch(() => {});
    },
  };
}

/** Redraws of a throttled progress view are at least this far apart. */
export const REDRAW_MS = 100;

export interface ThrottledView<P> {
  /** Redraws unless the last redraw was under REDRAW_MS ago; a `final` state is always drawn. */
  update(props: P, final: boolean): void;
  stop(): Promise<void>;
}

/**
 * Progress of a long command: a live view on stderr when it is a terminal, redrawn at most
 * every REDRAW_MS (a command may report thousands of steps a second); null when stderr is not a
 * terminal or with --json, so logs and pipes get only the final report.
 */
export async function mountProgress<P extends object>(ctx: CommandContext, load: () => Promise<ComponentType<P>>, initial: P, now: () => number = Date.now): Promise<ThrottledView<P> | null> {
  if (!ctx.stderrTty || ctx.json) return null;
  const view = await mountLive(ctx.io.stderr, load, initial);
  let last = 0;
  return {
    update(props, final) {
      const at = now();
      if (at - last < REDRAW_MS && !final) return;
      last = at;
      view.update(props);
    },
    stop: () => view.stop(),
  };
}

/** Narrower than this (or 0, as some terminals report), a progress line cannot be laid out. */
export const MIN_COLUMNS = 20;

/**
 * The stream as Ink sees it, with a usable size: a terminal reporting 0 columns (or none) would
 * make Ink wrap every character onto its own line; it gets 80 instead. NOTE: one reporting 0 rows
 * (a pseudo-terminal without a size) would make Ink clear the whole screen on every frame, since
 * the view looks taller than the terminal; it gets 24.
 */
export function withUsableColumns(stream: NodeJS.WriteStream): NodeJS.WriteStream {
  return new Proxy(stream, {
    get(target, property) {
      if (property === 'columns') return usableColumns(target.columns);
      if (property === 'rows') return target.rows && target.rows > 0 ? target.rows : 24;
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

export function usableColumns(columns: number | undefined): number {
  return columns && columns >= MIN_COLUMNS ? columns : 80;
}
