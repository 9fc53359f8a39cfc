import { Box, Text } from 'ink';
import { formatBytes } from '../output/time.js';
import type { SyncProgressState } from './sync-progress-state.js';
import { ProgressBar } from './ProgressBar.js';

const RESULT: Record<number, string> = { 200: 'changed', 304: 'unchanged', 403: 'forbidden', 404: 'not offered' };

/** Live view of a sync on a terminal: one line per resource, then the commit's progress. */
export function SyncProgress({ state }: { state: SyncProgressState }) {
  return (
    <Box flexDirection="column">
      {state.resources.map((line) => (
        <Box key={line.resource}>
          <Box width={14}>
            <Text>{line.resource}</Text>
          </Box>
          {line.state === 'fetched' ? (
            <Text color={line.status === 304 ? 'gray' : line.status === 200 ? 'green' : 'yellow'}>
              {RESULT[line.status ?? 0] ?? `HTTP ${line.status}`} ({formatBytes(line.bytes ?? 0)})
            </Text>
          ) : (
            <Text dimColor>{line.state === 'fetching' ? 'reading…' : 'waiting'}</Text>
          )}
        </Box>
      ))}
      {state.applying ? (
        <Box>
          <Box width={14}>
            <Text>writing</Text>
          </Box>
          <ProgressBar done={state.applying.done} total={state.applying.total} />
          <Text> {state.applying.resource}</Text>
        </Box>
      ) : state.committing ? (
        <Text dimColor>writing the mirror…</Text>
      ) : null}
    </Box>
  );
}
