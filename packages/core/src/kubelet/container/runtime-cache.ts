import type { PassiveClock } from '../../clock/clock.ts';
import type { RuntimePod } from './runtime.ts';

/**
 * RuntimeCache (pkg/kubelet/container/runtime_cache.go): the running pods (GetPods(all=false)), listed
 * again only when the last listing is older than the cache period. Housekeeping reads it every 2 s; the
 * kubelet sets the period to housekeepingPeriod + housekeepingWarningDuration (3 s), so every other
 * housekeeping lists the runtime and the one between reuses that listing.
 *
 * The time kept is taken before the listing starts, so a listing never counts as fresher than it is.
 * A failed listing leaves the cache as it was and rejects. Calls are not serialised (no lock): two
 * concurrent misses both list, the later answer wins.
 */
export class RuntimeCache {
  private pods: RuntimePod[] = [];
  /** When the cached listing started; 0 before the first. */
  private cacheTime = 0;

  constructor(
    private readonly getter: { getPods(all: boolean): Promise<RuntimePod[]> },
    private readonly clock: PassiveClock,
    private readonly cachePeriodMs: number,
  ) {}

  /** GetPods: the cached running pods, listed anew when the cache is older than the period. */
  async getPods(): Promise<RuntimePod[]> {
    if (this.cacheTime === 0 || this.clock.since(this.cacheTime) > this.cachePeriodMs)
      await this.updateCache();
    return this.pods;
  }

  /** ForceUpdateIfOlder: lists anew when the cached listing started before `minExpectedCacheTime`. */
  async forceUpdateIfOlder(minExpectedCacheTime: number): Promise<void> {
    if (this.cacheTime < minExpectedCacheTime) await this.updateCache();
  }

  private async updateCache(): Promise<void> {
    const timestamp = this.clock.now();
    const pods = await this.getter.getPods(false);
    this.pods = pods;
    this.cacheTime = timestamp;
  }
}
