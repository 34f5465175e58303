/**
 * Label and field selectors (label-selector.ts, field-selector.ts) in one import for the routes and tests.
 */
export {
  type FieldRequirement,
  fieldsMatch,
  parseFieldSelector,
} from './field-selector.ts';
export { labelValueErrors, qualifiedNameErrors } from './label-names.ts';
export {
  type LabelOperator,
  type LabelRequirement,
  labelsMatch,
  type Parsed,
  parseLabelSelector,
} from './label-selector.ts';
