import t from 'tap';
import { checkChoiceReference, choiceReferenceUrl, parseChoiceReference } from '../../schema/index.js';

t.test('parseChoiceReference accepts any base and root-relative paths', async (t) => {
  const cases: Array<[string, string[] | null]> = [
    ['https://site.example/api/v2.0/schemas/choices.json?field=species', ['species']],
    ['http://localhost:8000/v2.0/schemas/choices.json?field=a_b-c', ['a_b-c']],
    ['/api/v2.0/schemas/choices.json?field=yesno', ['yesno']],
    ['https://site.example/api/v2.0/schemas/choices.json?field=a,b', ['a', 'b']],
    ['https://site.example/api/v2.0/schemas/choices.json?field=a&field=b&field=a', ['a', 'b']],
    ['https://site.example/api/v2.0/schemas/choices.json?lang=en&field=x', ['x']],
    ['https://site.example/api/v2.0/schemas/choices.json', null],
    ['https://site.example/api/v2.0/schemas/choices.json?field=', null],
    ['https://site.example/api/v2.0/schemas/choices.json?field=a b', null],
    ['https://site.example/api/v2.0/schemas/choices.json?field=a#frag', null],
    ['https://site.example/api/v1.0/schemas/choices.json?field=a', null],
    ['v2.0/schemas/choices.json?field=a', null],
    ['ftp://site.example/v2.0/schemas/choices.json?field=a', null],
    [`https://x.example/v2.0/schemas/choices.json?field=${'a'.repeat(41)}`, null],
  ];
  for (const [url, fields] of cases) {
    t.same(parseChoiceReference(url), fields === null ? null : { fields }, url);
  }
});

t.test('malformed references say why', async (t) => {
  const checked = checkChoiceReference('https://site.example/api/v2.0/schemas/choices.json');
  t.ok('reason' in checked && /field=/.test(checked.reason));
});

t.test('choiceReferenceUrl builds what parseChoiceReference reads', async (t) => {
  t.equal(choiceReferenceUrl('https://site.example/api/', 'species'), 'https://site.example/api/v2.0/schemas/choices.json?field=species');
  t.equal(choiceReferenceUrl('', ['a', 'b']), '/v2.0/schemas/choices.json?field=a,b');
  for (const field of ['x', 'carcassrep_species', 'blackRhinos', 'a-b']) {
    t.same(parseChoiceReference(choiceReferenceUrl('https://h.example/api', field)), { fields: [field] });
  }
  t.throws(() => choiceReferenceUrl('https://h.example', 'not valid'));
});
