/**
 * The image pull back-off (images/image_manager.go): per image, a failed pull opens a window of the initial
 * delay, each further failure within it doubles it up to the max; an entry idle for 2 × max starts over.
 * The source's windows are read against that ladder. Browser-safe: no Node imports.
 */
import type { TraceOf } from '../events/trace.ts';
import type { ExplainParams } from './params.ts';
import type { Reading } from './types.ts';
import { goMs } from './words.ts';

const RULE_IMAGE =
  'image pull back-off (images/image_manager.go): initial then doubling to the max per image';

export class ImageBackoffs {
  private readonly entries = new Map<string, { delayMs: number; lastUpdate: number; until: number }>();

  constructor(private readonly p: ExplainParams) {}

  /** An image pull back-off: a new window doubles the last one unless it expired. */
  read(ev: TraceOf<'backoff'>): Reading {
    const key = ev.image ?? ev.container;
    const prev = this.entries.get(key);
    const seen = ev.delayS * 1000;
    if (prev && prev.until === ev.until)
      return {
        verdict: 'agrees',
        model: ['the same pull window'],
        rule: RULE_IMAGE,
        backoffMs: prev.delayMs,
      };
    const p = this.p;
    const fresh = !prev || ev.time - prev.lastUpdate > 2 * p.imageMaxBackOffMs;
    const want = fresh ? p.imageInitialBackOffMs : Math.min(prev.delayMs * 2, p.imageMaxBackOffMs);
    const since = ev.until - seen;
    this.entries.set(key, { delayMs: seen, lastUpdate: since, until: ev.until });
    const r: Reading = {
      verdict: !prev && seen !== want ? 'agrees' : want === seen ? 'agrees' : 'differs',
      model: [
        `pull of ${key}: back-off ${goMs(want)}${fresh ? ' (first failure, or the entry expired)' : ' (doubled)'}`,
      ],
      rule: RULE_IMAGE,
      backoffMs: want,
      window: true,
    };
    if (!prev && seen !== want)
      r.assumed = [`the source holds no earlier failed pull of ${key}: its entry is taken as ${goMs(seen)}`];
    if (r.verdict === 'differs')
      r.difference = {
        kind: 'image-backoff-delay',
        expected: `back-off ${goMs(want)}`,
        seen: `back-off ${goMs(seen)}`,
      };
    return r;
  }
}
