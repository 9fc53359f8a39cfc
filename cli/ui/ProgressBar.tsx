import { Text } from 'ink';

export interface ProgressBarProps {
  done: number;
  total: number;
  width?: number;
}

/** `[██████░░░░]  60%`: a bar of `width` cells; an unknown total shows an empty bar. */
export function ProgressBar({ done, total, width = 30 }: ProgressBarProps) {
  const ratio = total > 0 ? Math.min(1, Math.max(0, done / total)) : 0;
  const filled = Math.round(ratio * width);
  return (
    <Text>
      [<Text color="green">{'█'.repeat(filled)}</Text>
      <Text dimColor>{'░'.repeat(width - filled)}</Text>] {String(Math.floor(ratio * 100)).padStart(3)}%
    </Text>
  );
}
