import { Box, Text } from 'ink';
import { ProgressBar } from './ProgressBar.js';

export interface ReplayProgressProps {
  recording: string;
  done: number;
  total: number;
  counts: { created: number; duplicate: number; accepted: number; rejected: number };
  /** Lines per second so far. */
  rate: number;
  lastLine: number | null;
}

/** Live view of a replay on a terminal: a bar, the outcomes so far, the pace. */
export function ReplayProgress({ recording, done, total, counts, rate, lastLine }: ReplayProgressProps) {
  return (
    <Box flexDirection="column">
      <Text>
        Replaying <Text bold>{recording}</Text>
        {lastLine !== null ? <Text dimColor> (line {lastLine})</Text> : null}
      </Text>
      <Box>
        <ProgressBar done={done} total={total} />
        <Text>
          {' '}
          {done}/{total} · {rate.toFixed(1)}/s
        </Text>
      </Box>
      <Text>
        <Text color="green">{counts.created} created</Text> · {counts.duplicate} duplicate
        {counts.accepted ? ` · ${counts.accepted} accepted` : ''} · <Text color={counts.rejected ? 'red' : undefined}>{counts.rejected} rejected</Text>
      </Text>
    </Box>
  );
}
