/**
 * The real kubectl writing pods the way most users do, with its default validation: it reads the server's
 * OpenAPI documents first (`/openapi/v3`, the core v1 document) and, finding `fieldValidation` on the pod
 * PATCH, leaves validation to the server. apply, create, replace, edit (with its re-opened editor naming the
 * refused field), explain, and server-side dry runs (`--dry-run=server`, `diff`) that change nothing.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Kubectl, podManifest, startKubectl } from './kubectl-run.ts';

const cleanups: (() => Promise<void>)[] = [];
let k: Kubectl;

beforeAll(async () => {
  k = await startKubectl(cleanups);
});

afterAll(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function file(name: string, text: string): Promise<string> {
  const path = join(k.dir, name);
  await writeFile(path, text);
  return path;
}

/**
 * `kubectl get -o yaml`, the image changed, `kubectl replace` with it: the read-modify-write a user does.
 * The pod's status moves on while its containers run, and a replace carrying the resourceVersion it read is
 * refused with 409 Conflict when the status moved meanwhile (the apiserver's optimistic concurrency); the
 * user's answer, as client-go's RetryOnConflict, is to read again and retry. Returns the replace's output.
 */
async function replaceImage(name: string, image: string, args: string[] = []): Promise<string> {
  for (let attempt = 1; ; attempt++) {
    const live = await k.ok(['get', 'pod', name, '-o', 'yaml']);
    const path = await file(`${name}-replaced.yaml`, live.replace(/image: busybox$/m, `image: ${image}`));
    const r = await k.run(['replace', ...args, '-f', path]);
    if (r.code === 0) return r.stdout;
    if (attempt === 5 || !/\(Conflict\)/.test(r.stderr))
      throw new Error(`kubectl replace failed (${r.code}): ${r.stderr}`);
  }
}

const status = async (name: string) =>
  (await fetch(`${k.server.base}/api/v1/namespaces/default/pods/${name}`)).status;

describe('kubectl with validation on', () => {
  it('applies, creates and replaces pods', async () => {
    const applied = await file('a.yaml', podManifest('applied'));
    expect((await k.ok(['apply', '-f', applied])).trim()).toBe('pod/applied created');
    expect((await k.ok(['apply', '-f', applied])).trim()).toBe('pod/applied unchanged');
    const created = await file('c.yaml', podManifest('created'));
    expect((await k.ok(['create', '-f', created])).trim()).toBe('pod/created created');
    // replace the pod as it is, with another image (the one field a pod may change)
    expect((await replaceImage('created', 'busybox:1.37')).trim()).toBe('pod/created replaced');
    expect(await k.ok(['get', 'pod', 'created', '-o', 'jsonpath={.spec.containers[0].image}'])).toBe(
      'busybox:1.37',
    );
  });

  it('refuses an unknown field with the server’s message', async () => {
    const bad = await file('bad.yaml', podManifest('bad', 'busybox', '\n  foo: 1'));
    const r = await k.run(['create', '-f', bad]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('strict decoding error: unknown field "spec.foo"');
    expect(await status('bad')).toBe(404);
    // --validate=warn: created without the field, the server's warning printed
    const warned = await k.run(['create', '--validate=warn', '-f', bad]);
    expect(warned.stdout.trim()).toBe('pod/bad created');
    expect(warned.stderr).toContain('Warning: unknown field "spec.foo"');
    const ignored = await file('ignored.yaml', podManifest('ignored', 'busybox', '\n  foo: 1'));
    expect(await k.run(['create', '--validate=false', '-f', ignored])).toMatchObject({
      stdout: 'pod/ignored created\n',
      stderr: '',
    });
  });

  it('edit re-opens the editor naming the refused field, then saves a valid change', async () => {
    await k.ok(['create', '-f', await file('e.yaml', podManifest('edited'))]);
    const seen = join(k.dir, 'seen.txt');
    // first save: no image (refused); the file comes back with the reason on top and is saved unchanged
    const blank = await file(
      'blank.sh',
      `#!/bin/sh\ncat "$1" >> ${seen}\nsed -i 's/^\\(    \\)image: busybox$/\\1image: ""/' "$1"\n`,
    );
    const r = await k.run(['edit', 'pod', 'edited'], { KUBE_EDITOR: `sh ${blank}` });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('error: pods "edited" is invalid');
    const text = await readFile(seen, 'utf8');
    expect(text).toContain('# pods "edited" was not valid:');
    expect(text).toContain('# * spec.containers[0].image: Required value');
    const retag = await file('retag.sh', `#!/bin/sh\nsed -i 's/image: busybox$/image: busybox:1.37/' "$1"\n`);
    expect((await k.run(['edit', 'pod', 'edited'], { KUBE_EDITOR: `sh ${retag}` })).stdout.trim()).toBe(
      'pod/edited edited',
    );
  });

  it('explains pod fields from the served schema', async () => {
    const out = await k.ok(['explain', 'pod.spec.containers']);
    expect(out).toMatch(/^KIND:\s+Pod$/m);
    expect(out).toMatch(/^FIELD: containers <\[\]Container>$/m);
    expect(out).toMatch(/^ {2}image\t<string>$/m);
    expect(out).toMatch(/^ {2}name\t<string> -required-$/m);
  });
});

describe('server-side dry run', () => {
  it('creates, changes and deletes nothing, answering as if it had', async () => {
    const dry = await file('dry.yaml', podManifest('dry'));
    expect((await k.ok(['apply', '--dry-run=server', '-f', dry])).trim()).toBe(
      'pod/dry created (server dry run)',
    );
    expect((await k.ok(['create', '--dry-run=server', '-f', dry])).trim()).toBe(
      'pod/dry created (server dry run)',
    );
    expect(await status('dry')).toBe(404);

    await k.ok(['create', '-f', await file('kept.yaml', podManifest('kept'))]);
    const changed = await file('kept2.yaml', podManifest('kept', 'busybox:9'));
    const diff = await k.run(['diff', '-f', changed]);
    expect(diff.code).toBe(1); // a difference found
    expect(diff.stdout).toMatch(/^\+ {4}image: busybox:9$/m);
    expect((await replaceImage('kept', 'busybox:9', ['--dry-run=server'])).trim()).toBe(
      'pod/kept replaced (server dry run)',
    );
    expect((await k.ok(['delete', 'pod', 'kept', '--dry-run=server'])).trim()).toBe(
      'pod "kept" deleted (server dry run)',
    );
    const pod = JSON.parse(await k.ok(['get', 'pod', 'kept', '-o', 'json']));
    expect(pod.spec.containers[0].image).toBe('busybox');
    expect(pod.metadata.deletionTimestamp).toBeUndefined();
  });

  it('refuses a dryRun value other than All in the apiserver’s words', async () => {
    const res = await fetch(`${k.server.base}/api/v1/namespaces/default/pods?dryRun=Al`, {
      method: 'POST',
      headers: { 'content-type': 'application/yaml' },
      body: podManifest('typo'),
    });
    expect(res.status).toBe(422);
    expect(await res.json()).toMatchObject({
      reason: 'Invalid',
      message:
        'CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"Al"}: supported values: "All"',
      details: { causes: [{ field: 'dryRun', reason: 'FieldValueNotSupported' }] },
    });
    expect(await status('typo')).toBe(404);
  });
});
