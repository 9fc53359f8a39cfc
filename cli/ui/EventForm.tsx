import { Box, Text, useInput } from 'ink';
import { useEffect, useReducer } from 'react';
import { formReducer, initialForm, optionsOf, type FormKey, type FormState } from '../record/event-form-state.js';
import type { FieldSpec } from '../record/event-type.js';

const HELP: Record<string, string> = {
  choice: '↑/↓ to move, Enter to pick',
  multichoice: '↑/↓ to move, space to toggle, Enter when done',
  json: 'JSON (a collection takes an array), Enter to accept',
  location: 'LAT,LON, Enter to accept',
  date: 'ISO 8601 (e.g. 2026-11-20 or 2026-11-20T10:00:00+00:00), Enter to accept',
};

/** The event form: one field at a time (see event-form-state.ts for the keys). */
export function EventForm({ type, fields, onEnd }: { type: string; fields: FieldSpec[]; onEnd: (state: FormState) => void }) {
  const [state, dispatch] = useReducer(formReducer, fields, initialForm);
  useInput((input, key) => dispatch({ input, ...key } as FormKey));
  useEffect(() => {
    if (state.done || state.cancelled) onEnd(state);
  }, [state.done, state.cancelled]);
  const field = state.fields[state.index];
  if (!field) return <Text dimColor>{state.cancelled ? 'cancelled' : 'done'}</Text>;
  return (
    <Box flexDirection="column">
      <Text>
        <Text bold>{type}</Text> <Text dimColor>field {state.index + 1} of {fields.length}</Text>
      </Text>
      <Text>
        {field.title}
        {field.required ? <Text color="red">*</Text> : null} <Text dimColor>({field.name}, {field.kind})</Text>
      </Text>
      {field.kind === 'choice' || field.kind === 'multichoice' ? (
        optionsOf(state).map((option, i) => (
          <Text key={String(option.value)} color={i === state.highlight ? 'cyan' : undefined}>
            {i === state.highlight ? '›' : ' '} {field.kind === 'multichoice' ? (state.picked.includes(option.value!) ? '[x] ' : '[ ] ') : ''}
            {option.display}
          </Text>
        ))
      ) : (
        <Text>
          › {state.text}
          <Text inverse> </Text>
        </Text>
      )}
      {state.error ? <Text color="red">{state.error}</Text> : null}
      <Text dimColor>{HELP[field.kind] ?? 'type, Enter to accept (empty to skip an optional field)'}; Esc cancels</Text>
    </Box>
  );
}
