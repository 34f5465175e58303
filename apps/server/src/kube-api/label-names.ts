/**
 * The name checks a label selector applies (apimachinery/pkg/util/validation: IsQualifiedName,
 * IsValidLabelValue), with their messages. Pure.
 */

const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const QUALIFIED_NAME_FMT =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

/** IsQualifiedName: `[prefix/]name`, the prefix a DNS subdomain, the name at most 63 characters. */
export function qualifiedNameErrors(key: string): string[] {
  const parts = key.split('/');
  let name = key;
  const errs: string[] = [];
  if (parts.length === 2) {
    const prefix = parts[0] as string;
    name = parts[1] as string;
    if (prefix.length === 0) errs.push('prefix part must be non-empty');
    else if (prefix.length > 253) errs.push('prefix part must be no more than 253 characters');
    else if (!DNS1123_SUBDOMAIN.test(prefix)) {
      errs.push(
        "prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
      );
    }
  } else if (parts.length > 2) {
    return [
      "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ];
  }
  if (name.length === 0) errs.push('name part must be non-empty');
  else if (name.length > 63) errs.push('name part must be no more than 63 characters');
  if (name.length > 0 && !QUALIFIED_NAME.test(name)) errs.push(QUALIFIED_NAME_FMT);
  return errs;
}

/** IsValidLabelValue: empty, or at most 63 characters of [A-Za-z0-9_.-] starting and ending alphanumeric. */
export function labelValueErrors(v: string): string[] {
  const errs: string[] = [];
  if (v.length > 63) errs.push('must be no more than 63 characters');
  if (!LABEL_VALUE.test(v)) {
    errs.push(
      "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
    );
  }
  return errs;
}
