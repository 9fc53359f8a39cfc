/**
 * Issue 28's target for the breaking-change lint: a corpus of real event-type documents (the
 * project's v2 fixtures, plus the shared EarthRanger corpus when present), 10,000 generated
 * events that validate against them, 40 seeded breaking changes (all five rules, each on
 * something the events hold) each proposed together with non-breaking edits, and revisions of
 * non-breaking edits only. The lint must flag exactly the 40 — with the number of events each
 * hurts, checked against the events themselves — and nothing else. Deterministic (seeded).
 */
import t from 'tap';
import { checkCompatibility, COMPAT_RULES, summariseEvents, type CompatFinding, type UsageSummary } from '../../schema/compat/index.js';
import type { ChoiceLookup } from '../../schema/diff/index.js';
import { buildEventDetailsValidator } from '../../schema/event-details.js';
import { createLocalChoiceResolver } from '../../schema/index.js';
import { preRender } from '../../schema/pre-render.js';
import { breakingCandidates, type Seeded } from './compat-corpus/breaking.js';
import { fixtureChoiceLists, fixtureDocs, sharedDocs, type CorpusDoc, type Doc } from './compat-corpus/corpus.js';
import { nonBreakingEdits } from './compat-corpus/edits.js';
import { generateEvents } from './compat-corpus/generate.js';
import { createRng } from './compat-corpus/prng.js';

const TOTAL_EVENTS = 10_000;
const SEEDED = 40;
const rng = createRng(28);
const lists = fixtureChoiceLists();
const lookup: ChoiceLookup = (l) => lists.get(l) ?? null;
const resolver = createLocalChoiceResolver(lists);

interface Entry extends CorpusDoc { events: Array<Record<string, unknown>>; usage: UsageSummary; rendered: Record<string, any> }

async function rendered(doc: Doc): Promise<Record<string, any>> {
  const result = await preRender(doc, resolver, { keepRootClosure: true });
  return (result.document as Doc).json;
}

/** Events holding `field` whose value the old field schema accepts and the new one refuses. */
function refused(entry: Entry, field: string, after: Record<string, any>): number {
  const one = (sub: unknown) => buildEventDetailsValidator({ type: 'object', properties: { [field]: sub } });
  const before = one(entry.rendered.properties[field]);
  const now = one(after.properties[field]);
  return entry.events.filter((e) => Object.hasOwn(e, field) && before({ [field]: e[field] }).valid && !now({ [field]: e[field] }).valid).length;
}

async function truth(entry: Entry, seeded: Seeded, after: Doc): Promise<number> {
  const holders = entry.events.filter((e) => seeded.field !== undefined && Object.hasOwn(e, seeded.field)).length;
  switch (seeded.rule) {
    case 'breaking/renamed-value': return entry.events.length;
    case 'breaking/removed-field': return holders;
    case 'breaking/required-added': return entry.events.length - holders;
    default: return refused(entry, seeded.field!, await rendered(after));
  }
}

const brief = (f: CompatFinding): string => `${f.rule} ${f.field ?? '-'}`;

t.test('the lint flags exactly the 40 seeded breaking changes, and nothing else', async (t) => {
  const shared = sharedDocs();
  if (shared.skip) t.comment(`shared EarthRanger corpus skipped: ${shared.skip}; the fixtures alone make the corpus`);
  const docs = [...fixtureDocs(), ...shared.docs];
  const withFields = docs.filter((d) => Object.keys(d.doc.json.properties ?? {}).length > 0);
  t.ok(withFields.length >= 3, `${docs.length} documents, ${withFields.length} with fields`);
  const entries: Entry[] = [];
  let generated = 0;
  for (const [i, doc] of withFields.entries()) {
    const json = await rendered(doc.doc);
    const validate = buildEventDetailsValidator(json);
    const count = Math.floor(TOTAL_EVENTS / withFields.length) + (i === 0 ? TOTAL_EVENTS % withFields.length : 0);
    const events = generateEvents(doc.doc.json, count, rng, lookup, validate);
    const invalid = events.filter((e) => !validate(e).valid);
    t.equal(invalid.length, 0, `${doc.name}: ${count} generated events validate`);
    generated += events.length;
    entries.push({ ...doc, events, usage: summariseEvents(doc.value, events), rendered: json });
  }
  t.equal(generated, TOTAL_EVENTS);

  const pools = entries.map((entry) => breakingCandidates(entry, entry.usage, lists, rng).map((seeded) => ({ entry, seeded })));
  const all = pools.flat();
  const chosen: Array<{ entry: Entry; seeded: Seeded }> = [];
  for (let i = 0; i < SEEDED; i++) {
    const left = all.filter((c) => !chosen.includes(c));
    const ofRule = left.filter((c) => c.seeded.rule === COMPAT_RULES[i % COMPAT_RULES.length]);
    chosen.push(rng.pick(ofRule.length > 0 ? ofRule : left));
  }
  const byRule = new Map<string, number>();
  for (const { seeded } of chosen) byRule.set(seeded.rule, (byRule.get(seeded.rule) ?? 0) + 1);
  t.equal(byRule.size, COMPAT_RULES.length, `every rule seeded: ${JSON.stringify(Object.fromEntries(byRule))}`);

  let flagged = 0;
  for (const { entry, seeded } of chosen) {
    const after = structuredClone(entry.doc);
    seeded.mutate(after);
    const edits = rng.shuffle(nonBreakingEdits(entry, lists, new Set(seeded.field ? [seeded.field] : []))).slice(0, 2);
    for (const edit of edits) edit.mutate(after);
    const label = `${entry.name}: ${seeded.describe} (+ ${edits.map((e) => e.describe).join(', ')})`;
    const { findings } = checkCompatibility({ before: entry.doc, after, beforeValue: entry.value, afterValue: seeded.valueAfter ?? entry.value, usage: entry.usage, choices: lookup });
    t.same(findings.map(brief), [`${seeded.rule} ${seeded.field ?? '-'}`], label);
    const finding = findings[0];
    if (!finding) continue;
    flagged++;
    const expected = await truth(entry, seeded, after);
    t.ok(expected > 0, `${label}: some event is hurt`);
    if (finding.affected_at_least) t.ok(finding.affected_events >= 1 && finding.affected_events <= expected, `${label}: at least ${finding.affected_events} of ${expected}`);
    else t.equal(finding.affected_events, expected, `${label}: exactly the events hurt`);
  }
  t.equal(flagged, SEEDED, 'all 40 flagged');

  for (const entry of entries) {
    const after = structuredClone(entry.doc);
    const edits = nonBreakingEdits(entry, lists, new Set());
    for (const edit of edits) edit.mutate(after);
    const { findings, diff } = checkCompatibility({ before: entry.doc, after, beforeValue: entry.value, afterValue: entry.value, usage: entry.usage, choices: lookup });
    t.notOk(diff.identical, `${entry.name}: the edits change the document`);
    t.same(findings.map(brief), [], `${entry.name}: ${edits.length} non-breaking edits (${edits.map((e) => e.describe).join('; ')}) flag nothing`);
  }
});
