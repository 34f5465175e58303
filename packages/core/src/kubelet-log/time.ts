/**
 * Clock arithmetic for log headers: klog's `MMDD hh:mm:ss.uuuuuu` and syslog's `Mon DD hh:mm:ss` carry no year
 * and no zone. The year comes from the caller (`--year`, default the current year) and rolls over when the
 * month falls back by more than six (December to January); the zone is UTC unless an IANA zone is given, read
 * with Intl so it runs in a browser too. Called once per header line; offsets are cached per hour.
 */
const MONTHS: Record<string, number> = {
  Jan: 1,
  Feb: 2,
  Mar: 3,
  Apr: 4,
  May: 5,
  Jun: 6,
  Jul: 7,
  Aug: 8,
  Sep: 9,
  Oct: 10,
  Nov: 11,
  Dec: 12,
};

export function monthOf(abbrev: string): number | undefined {
  return MONTHS[abbrev];
}

/** Throws a RangeError for an unknown zone name, so a bad --tz is reported before any input is read. */
export function checkZone(zone: string): void {
  new Intl.DateTimeFormat('en-US', { timeZone: zone });
}

export class LocalClock {
  private year: number;
  private lastMonth = 0;
  private readonly fmt: Intl.DateTimeFormat | undefined;
  private readonly offsets = new Map<number, number>();
  /** the minute toEpoch last read, and its start (ms) */
  private minYear = 0;
  private minMonth = 0;
  private minDay = 0;
  private minH = 0;
  private minM = 0;
  private minStart = 0;

  constructor(year: number, zone?: string) {
    this.year = year;
    this.fmt =
      zone && zone !== 'UTC'
        ? new Intl.DateTimeFormat('en-US', {
            timeZone: zone,
            hourCycle: 'h23',
            year: 'numeric',
            month: 'numeric',
            day: 'numeric',
            hour: 'numeric',
            minute: 'numeric',
            second: 'numeric',
          })
        : undefined;
  }

  /** A full date seen in the input (docker, ISO prefix) fixes the year for the headers that follow. */
  setYear(year: number, month: number): void {
    this.year = year;
    this.lastMonth = month;
  }

  /** ms since the epoch of a local wall-clock reading without a year. */
  toEpoch(month: number, day: number, h: number, m: number, s: number, micros: number): number {
    if (this.lastMonth - month > 6) this.year++;
    else if (month - this.lastMonth > 6 && this.lastMonth !== 0) this.year--;
    this.lastMonth = month;
    // lines come many to a minute: the minute's start is worked out once
    if (
      this.year !== this.minYear ||
      month !== this.minMonth ||
      day !== this.minDay ||
      h !== this.minH ||
      m !== this.minM
    ) {
      this.minYear = this.year;
      this.minMonth = month;
      this.minDay = day;
      this.minH = h;
      this.minM = m;
      this.minStart = Date.UTC(this.year, month - 1, day, h, m, 0);
    }
    const wall = this.minStart + s * 1000 + micros / 1000;
    return this.fmt ? wall - this.offset(wall) : wall;
  }

  /** the zone's offset (local - UTC, ms) near a wall-clock instant read as if it were UTC */
  private offset(wall: number): number {
    const hour = Math.floor(wall / 3_600_000);
    let off = this.offsets.get(hour);
    if (off === undefined) {
      // two rounds: the offset at (wall - offset) is the one that applies to this wall time
      off = this.zoneOffsetAt(wall);
      off = this.zoneOffsetAt(wall - off);
      this.offsets.set(hour, off);
    }
    return off;
  }

  private zoneOffsetAt(utc: number): number {
    const parts = (this.fmt as Intl.DateTimeFormat).formatToParts(new Date(utc));
    const get = (t: string) => Number(parts.find((p) => p.type === t)?.value ?? 0);
    const local = Date.UTC(
      get('year'),
      get('month') - 1,
      get('day'),
      get('hour'),
      get('minute'),
      get('second'),
    );
    return local - Math.floor(utc / 1000) * 1000;
  }
}
