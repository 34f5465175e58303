import { describe, expect, it } from 'vitest';
import { defaultKubeletConfiguration } from '../kubelet/configuration.ts';
import { backoffConstants, backoffRuleWords } from './backoff-rule.ts';

describe('the back-off rule in words', () => {
  it("states kubelet v1.32's defaults: 10s doubling to 5m0s, forgotten after 10 minutes of running", () => {
    expect(backoffConstants('container')).toEqual({ initialS: 10, maxS: 300, resetS: 600 });
    expect(backoffRuleWords('container', backoffConstants('container'))).toBe(
      'Each crash doubles the delay from 10s up to 5m0s. The delay resets to 10s after the container runs 10 minutes without failing.',
    );
    expect(backoffRuleWords('image', backoffConstants('image'))).toBe(
      'Each failed pull doubles the delay from 10s up to 5m0s; a successful pull clears it, and the entry expires after 10m0s without failures.',
    );
  });

  it("follows a node's own settings: the reset period is the configured one, an image entry's twice its cap", () => {
    const cfg = {
      ...defaultKubeletConfiguration,
      maxContainerBackOffMs: 20_000,
      containerBackOffResetMs: 90_000,
      maxImageBackOffMs: 40_000,
    };
    expect(backoffRuleWords('container', backoffConstants('container', cfg))).toBe(
      'Each crash doubles the delay from 10s up to 20s. The delay resets to 10s after the container runs 1m30s without failing.',
    );
    expect(backoffConstants('image', cfg)).toEqual({ initialS: 10, maxS: 40, resetS: 80 });
  });
});
