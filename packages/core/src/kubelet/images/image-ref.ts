/**
 * applyDefaultImageTag (images/image_manager.go): an image with neither tag nor digest gets ":latest"
 * appended for the CRI request, without qualifying the name (busybox stays busybox). The reference is
 * checked with the docker reference grammar; invalid names give the parser's message.
 */
const component = '[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*';
const domainComponent = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const domain = `(?:${domainComponent}(?:\\.${domainComponent})*|\\[[a-fA-F0-9:]+\\])(?::[0-9]+)?`;
const tag = '[\\w][\\w.-]{0,127}';
const digest = '[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}';
const reference = new RegExp(
  `^((?:${domain}/)?${component}(?:/${component})*)(?::(${tag}))?(?:@(${digest}))?$`,
);

export function applyDefaultImageTag(image: string): { image: string } | { error: string } {
  const m = reference.exec(image);
  if (!m) {
    const lower = reference.exec(image.toLowerCase());
    const why = lower
      ? `invalid reference format: repository name (${nameForError(image)}) must be lowercase`
      : 'invalid reference format';
    return { error: `couldn't parse image name "${image}": ${why}` };
  }
  const [, , tg, dg] = m;
  if (!tg && !dg) return { image: `${image}:latest` };
  return { image };
}

function nameForError(image: string): string {
  const name = image.split('@')[0]?.replace(/:[^/]*$/, '') ?? image;
  return name.includes('/') ? name : `library/${name}`;
}
