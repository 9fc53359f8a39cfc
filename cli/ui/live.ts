/**
 * Mounts an Ink view on a terminal stream and re-renders it with new props. Ink and React are
 * loaded only here, when a terminal is there to show something (piped runs never load them).
 */
import type { ComponentType } from 'react';

const Nothing = () => null;

export interface LiveView<P> {
  update(props: P): void;
  stop(): Promise<void>;
}

export async function mountLive<P extends object>(stream: NodeJS.WritableStream, load: () => Promise<ComponentType<P>>, props: P): Promise<LiveView<P>> {
  const [{ render }, { createElement }, Component] = await Promise.all([import('ink'), import('react'), load()]);
  const instance = render(createElement(Component, props), {
    stdout: stream as NodeJS.WriteStream,
    stderr: stream as NodeJS.WriteStream,
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
