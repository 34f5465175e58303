import { describe, expect, it } from 'vitest';
import { POD_REF, T0, traceBuilder } from './fixtures.ts';
import { deleteGrace } from './timeline-grace.ts';

describe('a deleted pod’s grace deadline', () => {
  it('is the deletionTimestamp of its DELETE, which the API server set to the DELETE plus the grace', () => {
    const ev = traceBuilder(1);
    const events = [
      ev(0, { type: 'config.update', op: 'ADD', source: 'api', ...POD_REF }),
      ev(10, { type: 'config.update', op: 'UPDATE', source: 'api', ...POD_REF }),
      ev(20, {
        type: 'config.update',
        op: 'DELETE',
        source: 'api',
        deletionTimestamp: new Date(T0 + 50_000).toISOString(),
        gracePeriodS: 30,
        ...POD_REF,
      }),
    ];
    expect(deleteGrace(events)).toEqual({
      seq: 3,
      time: T0 + 20_000,
      gracePeriodS: 30,
      deadline: T0 + 50_000,
    });
    // a DELETE without the API's fields (the engine's own, a log's) gives none
    expect(
      deleteGrace([ev(0, { type: 'config.update', op: 'DELETE', source: 'api', ...POD_REF })]),
    ).toBeNull();
  });
});
