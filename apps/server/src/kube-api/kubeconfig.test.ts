import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { clientURL, writeKubeconfig } from './kubeconfig.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('the kubeconfig', () => {
  it('is written 0600 with a current context naming the server, and the token and CA when given', () => {
    const dir = mkdtempSync(join(tmpdir(), 'syncscope-kubeconfig-'));
    dirs.push(dir);
    const plain = writeKubeconfig(dir, { server: 'http://127.0.0.1:8080' });
    expect(statSync(plain).mode & 0o777).toBe(0o600);
    const doc = parse(readFileSync(plain, 'utf8'));
    expect(doc['current-context']).toBe('syncscope');
    // client-node reads an http server only with the skip flag (there is no TLS to verify)
    expect(doc.clusters[0].cluster).toEqual({
      server: 'http://127.0.0.1:8080',
      'insecure-skip-tls-verify': true,
    });
    expect(doc.users[0].user).toEqual({});
    writeKubeconfig(dir, { server: 'https://127.0.0.1:9443', token: 'secret-token-0123456', caCert: 'PEM' });
    const secured = parse(readFileSync(plain, 'utf8'));
    expect(secured.users[0].user).toEqual({ token: 'secret-token-0123456' });
    expect(secured.clusters[0].cluster).toEqual({
      server: 'https://127.0.0.1:9443',
      'certificate-authority-data': Buffer.from('PEM').toString('base64'),
    });
    expect(statSync(plain).mode & 0o777).toBe(0o600);
  });

  it('names a wildcard listen address as loopback', () => {
    expect(clientURL('0.0.0.0', 8080)).toBe('http://127.0.0.1:8080');
    expect(clientURL('::', 8080, 'https')).toBe('https://[::1]:8080');
    expect(clientURL('192.0.2.7', 1)).toBe('http://192.0.2.7:1');
  });
});
