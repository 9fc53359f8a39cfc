/**
 * Colours for terminal output: only on a TTY and never with NO_COLOR (https://no-color.org).
 * Plain output (pipes, files, CI logs) gets no escape codes at all.
 */
export interface Style {
  enabled: boolean;
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  yellow(text: string): string;
  green(text: string): string;
  cyan(text: string): string;
}

const wrap = (enabled: boolean, open: number, close: number) => (text: string) => (enabled ? `\u001b[${open}m${text}\u001b[${close}m` : text);

export function createStyle(enabled: boolean): Style {
  return {
    enabled,
    bold: wrap(enabled, 1, 22),
    dim: wrap(enabled, 2, 22),
    red: wrap(enabled, 31, 39),
    yellow: wrap(enabled, 33, 39),
    green: wrap(enabled, 32, 39),
    cyan: wrap(enabled, 36, 39),
  };
}

export const isTty = (stream: NodeJS.WritableStream): boolean => Boolean((stream as { isTTY?: boolean }).isTTY);

/** Visible width of a string that may hold colour codes. */
export const visibleLength = (text: string): number => text.replace(/\u001b\[[0-9;]*m/g, '').length;
