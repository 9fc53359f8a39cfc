import { Box, Text } from 'ink';
import { ProgressBar } from './ProgressBar.js';

export interface ChoicesProgressProps {
  done: number;
  total: number;
  created: number;
  existing: number;
  refused: number;
}

/** Live view of `fieldops choices push` on a terminal: a bar and the outcomes so far. */
export function ChoicesProgress({ done, total, created, existing, refused }: ChoicesProgressProps) {
  return (
    <Box flexDirection="column">
      <Box>
        <Box width={10}>
          <Text>choices</Text>
        </Box>
        <ProgressBar done={done} total={total} />
        <Text> {done}/{total}</Text>
      </Box>
      <Text>
        <Text color="green">{created} created</Text>, {existing} already there
        {refused ? <Text color="red">, {refused} refused</Text> : null}
      </Text>
    </Box>
  );
}
