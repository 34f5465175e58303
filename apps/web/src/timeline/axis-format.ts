/**
 * The time axis's labels: HH:MM:SS, with as many fractional digits as the tick spacing needs, so two ticks
 * never print the same label at any zoom (250 ms apart prints .250/.500, 20 ms apart .020/.040). Pure.
 */

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** HH:MM:SS of `ms` (local time, as the UI's clock prints it) with `digits` (0–3) fractional digits. */
export function clockLabel(ms: number, digits: number): string {
  const d = new Date(ms);
  const base = `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
  if (digits <= 0) return base;
  return `${base}.${pad(d.getMilliseconds(), 3).slice(0, digits)}`;
}

/** The fewest fractional digits (0–3) that print every tick apart; ticks sorted ascending (ms). */
function tickDigits(ticks: readonly number[]): number {
  for (let digits = 0; digits < 3; digits++) {
    let ok = true;
    for (let i = 1; i < ticks.length && ok; i++)
      ok = clockLabel(ticks[i] as number, digits) !== clockLabel(ticks[i - 1] as number, digits);
    if (ok) return digits;
  }
  return 3;
}

/** The labels of `ticks`, unique when the ticks are at least 1 ms apart. */
export function tickLabels(ticks: readonly number[]): string[] {
  const digits = tickDigits(ticks);
  return ticks.map((t) => clockLabel(t, digits));
}
