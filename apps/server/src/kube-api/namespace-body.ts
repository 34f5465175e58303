/**
 * What a namespace create asks for, checked as the apiserver's namespace strategy checks it: the body a
 * Namespace (else 400), a name (or a generateName, given the apiserver's random suffix) that is a lowercase
 * RFC 1123 label of at most 63 characters (else 422 Invalid on metadata.name), labels and annotations maps
 * of strings.
 */
import type { Status } from '@syncscope/core/api';
import { badRequest, status } from '../status.ts';

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_LABEL_MAX = 63;
const LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
/** What the apiserver appends to a generateName (names.SimpleNameGenerator). */
const GENERATED_SUFFIX = 5;
const SUFFIX_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function invalidName(name: string, value: string, detail: string): Status {
  const message = `metadata.name: ${detail}`;
  return status(422, 'Invalid', `Namespace "${name}" is invalid: ${message}`, {
    name,
    kind: 'Namespace',
    causes: [
      {
        reason: value === '' ? 'FieldValueRequired' : 'FieldValueInvalid',
        message: detail,
        field: 'metadata.name',
      },
    ],
  });
}

/** The name and labels of the namespace `body` asks for, or the Status refusing it. */
export function readNamespaceBody(
  body: unknown,
): { name: string; labels: Record<string, string>; annotations: Record<string, string> } | Status {
  if (!isObject(body) || (body.kind !== undefined && body.kind !== 'Namespace'))
    return badRequest('the object provided is unrecognized (must be of type Namespace)');
  const meta = isObject(body.metadata) ? body.metadata : {};
  const given = typeof meta.name === 'string' ? meta.name : '';
  const prefix = typeof meta.generateName === 'string' ? meta.generateName : '';
  const name = given || (prefix ? prefix + suffix() : '');
  if (name === '') return invalidName('', '', 'Required value: name or generateName is required');
  if (name.length > DNS1123_LABEL_MAX)
    return invalidName(
      name,
      name,
      `Invalid value: "${name}": must be no more than ${DNS1123_LABEL_MAX} characters`,
    );
  if (!DNS1123_LABEL.test(name)) return invalidName(name, name, `Invalid value: "${name}": ${LABEL_MSG}`);
  const labels = meta.labels ?? {};
  const annotations = meta.annotations ?? {};
  for (const [field, m] of [
    ['labels', labels],
    ['annotations', annotations],
  ] as const)
    if (!isObject(m) || Object.values(m).some((v) => typeof v !== 'string'))
      return badRequest(
        `Namespace in version "v1" cannot be handled as a Namespace: metadata.${field}: expected map of strings`,
      );
  return {
    name,
    labels: labels as Record<string, string>,
    annotations: annotations as Record<string, string>,
  };
}

function suffix(): string {
  let s = '';
  for (let i = 0; i < GENERATED_SUFFIX; i++)
    s += SUFFIX_ALPHABET[Math.floor(Math.random() * SUFFIX_ALPHABET.length)];
  return s;
}
