import { Box, Text } from 'ink';
import { ProgressBar } from './ProgressBar.js';

export interface PushProgressProps {
  done: number;
  total: number;
  sent: number;
  rejected: number;
  conflicts: number;
  current: string | null;
}

/** Live view of a push on a terminal: a bar, the counts, and what is being sent. */
export function PushProgress({ done, total, sent, rejected, conflicts, current }: PushProgressProps) {
  return (
    <Box flexDirection="column">
      <Box>
        <Box width={10}>
          <Text>pushing</Text>
        </Box>
        <ProgressBar done={done} total={total} />
        <Text> {done}/{total}</Text>
      </Box>
      <Text>
        <Text color="green">{sent} sent</Text>
        {rejected ? <Text color="red">, {rejected} rejected</Text> : null}
        {conflicts ? <Text color="yellow">, {conflicts} in conflict</Text> : null}
        {current ? <Text dimColor> · {current}</Text> : null}
      </Text>
    </Box>
  );
}
