import t from 'tap';
import { batchStatus, ISSUE_CATEGORIES, schemaIssue, type IssueCode, type SchemaIssue } from '../../schema/index.js';

const make = (code: IssueCode, severity: 'error' | 'warning' = 'error'): SchemaIssue =>
  schemaIssue(code, { message: code, hints: ['fix it'], severity });

t.test('the category always follows the code', async (t) => {
  for (const code of Object.keys(ISSUE_CATEGORIES) as IssueCode[]) {
    t.equal(make(code).category, ISSUE_CATEGORIES[code], code);
  }
  t.equal(make('ui_reference_error').category, 'ui');
  t.equal(make('unresolvable_reference').category, 'reference');
  t.equal(make('schema_rendering_error').category, 'rendering');
  t.equal(make('schema_version_error').category, 'validation');
});

t.test('batch status (CONTRACT §4)', async (t) => {
  const cases: Array<[string, SchemaIssue[], string]> = [
    ['no issues', [], 'success'],
    ['warnings only', [make('schema_validation_error', 'warning'), make('unresolvable_reference', 'warning')], 'success'],
    ['a reference error', [make('unresolvable_reference')], 'partial'],
    ['a rendering error', [make('schema_rendering_error')], 'partial'],
    ['a validation error', [make('schema_validation_error')], 'failure'],
    ['a ui error', [make('ui_reference_error')], 'failure'],
    ['ui error wins over reference error', [make('unresolvable_reference'), make('ui_definition_error')], 'failure'],
    ['a ui warning with a reference error', [make('ui_reference_error', 'warning'), make('unresolvable_reference')], 'partial'],
  ];
  for (const [name, issues, expected] of cases) t.equal(batchStatus(issues), expected, name);
});
