/**
 * Label and field selectors (label-selector.ts, field-selector.ts) in one import for the routes and tests.
 */
export {
  type FieldRequirement,
  fieldsMatch,
  parseFieldSelector,
} from './field-selector.ts';
export {
  type LabelRequirement,
  labelsMatch,
  parseLabelSelector,
} from './label-selector.ts';
