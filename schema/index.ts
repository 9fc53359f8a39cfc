/**
 * The event type / patrol type schema toolkit. Pure: it depends on ajv and ajv-formats only, so
 * the server and the CLI (offline) share it. See schema/README.md for the rules and decisions.
 */
export {
  batchStatus, capIssues, errorsOf, isError, ISSUE_CATEGORIES, MAX_REPORTED_ISSUES, schemaIssue, warningsOf,
  type BatchStatus, type IssueCategory, type IssueCode, type IssueInit, type IssueSeverity, type SchemaIssue,
} from './issues.js';
export { createAjv, DRAFT_2020_12, KNOWN_FORMATS, type Ajv, type CreateAjvOptions } from './ajv-factory.js';
export { validateDocument, analyseDocument, type DocumentValidation, type DocumentAnalysis, type ValidateOptions } from './validate-document.js';
export { ACCEPTED_ROOT_KEYS, REJECTED_ROOT_KEYS } from './envelope.js';
export { classifyField, type FieldInfo, type FieldKind } from './field-kinds.js';
export { POINT_SHAPE, POLYGON_SHAPE } from './geometry-fields.js';
export { UI_FIELD_TYPES } from './ui-fields.js';
export { normaliseDocument, normaliseJsonSchema } from './normalise.js';
export { classifyStoredDocument, type StoredDocumentClass } from './classify-stored.js';
export {
  choiceReferenceUrl, checkChoiceReference, parseChoiceReference, CHOICE_FIELD_NAME, CHOICES_PATH_SUFFIX,
  type ChoiceReference,
} from './choice-reference.js';
export {
  preRender, CHOICE_SHAPES,
  type ChoiceEntry, type ChoiceResolver, type ChoiceShape, type PreRenderOptions, type PreRenderResult,
} from './pre-render.js';
export { createLocalChoiceResolver, groupChoices, toChoiceRecords, type ChoiceRecord, type ChoicesByField } from './choice-records.js';
export {
  buildEventDetailsValidator, contentHash, createEventDetailsValidatorCache, prepareSchemaForAjv, SchemaCompileError,
  type EventDetailsResult, type EventDetailsValidator, type EventDetailsValidatorCache,
} from './event-details.js';
export { MAX_DETAILS_ISSUES } from './details-issues.js';
export {
  createPointerLocator, JsonSyntaxError, locatePointer, parseJsonText, parseJsonWithLocations,
  type PointerLocation, type SourcePosition,
} from './json-text.js';
export { getAtPointer, joinPointer, parsePointer } from './json-pointer.js';
export { parseV1, type ParsedV1, type V1Tag } from './v1/parse.js';
export type { TagKind, TagLookup } from './v1/tags.js';
export { renderV1, type ChoiceLists, type RenderedV1 } from './v1/render.js';
export { v1DetailsSchema } from './v1/details-schema.js';
export { migrateV1ToV2, type MigrateOptions, type MigrationResult } from './v1/migrate.js';
export type { NewChoice } from './v1/new-choices.js';
