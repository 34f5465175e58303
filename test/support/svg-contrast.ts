/**
 * The contrast of the text an SVG draws (timeline labels, exit codes on container bars, marker captions),
 * which axe's color-contrast rule does not check: for each visible `<text>` of an `<svg>`, its fill against
 * what is painted under its middle, the shapes and boxes below it blended bottom-up with their opacity, as
 * WCAG 2.1 computes contrast (relative luminance, (L1 + 0.05) / (L2 + 0.05)). Each text is scrolled into
 * view for the look-up; a text under an opaque shape is not seen and not measured; shapes that let pointer events through are found too (their pointer-events are
 * switched on while they are looked at, through the CSSOM, which the page's Content-Security-Policy allows).
 */
import type { Page } from 'playwright-core';

export interface SvgContrast {
  /** how many texts were measured */
  checked: number;
  /** the texts below the ratio, one line each: `2.1:1 "exit 1" rgb(…) on rgb(…)` */
  failures: string[];
}

/** Every SVG text in the part `scope` selects, measured; those under `min`:1 come back worded. */
export function svgTextContrast(page: Page, scope: string, min = 4.5): Promise<SvgContrast> {
  return page.evaluate(
    ({ scope, min }) => {
      type Rgba = [number, number, number, number];
      const parse = (c: string, alpha = 1): Rgba | undefined => {
        const m = /rgba?\(([\d.]+)[ ,]+([\d.]+)[ ,]+([\d.]+)(?:[ ,/]+([\d.]+%?))?\)/.exec(c);
        if (!m) return undefined;
        const a = m[4] === undefined ? 1 : m[4].endsWith('%') ? Number.parseFloat(m[4]) / 100 : Number(m[4]);
        return [Number(m[1]), Number(m[2]), Number(m[3]), a * alpha];
      };
      const over = (top: Rgba, below: Rgba): Rgba => {
        const a = top[3];
        return [
          top[0] * a + below[0] * (1 - a),
          top[1] * a + below[1] * (1 - a),
          top[2] * a + below[2] * (1 - a),
          1,
        ];
      };
      const lum = (c: Rgba) => {
        const ch = (v: number) => {
          const s = v / 255;
          return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
        };
        return 0.2126 * ch(c[0]) + 0.7152 * ch(c[1]) + 0.0722 * ch(c[2]);
      };
      const ratio = (a: Rgba, b: Rgba) => {
        const [hi, lo] = [lum(a), lum(b)].sort((x, y) => y - x) as [number, number];
        return (hi + 0.05) / (lo + 0.05);
      };
      const opacities = new Map<Element, number>();
      const opacity = (el: Element | null): number => {
        if (!el) return 1;
        let o = opacities.get(el);
        if (o === undefined) {
          o = Number(getComputedStyle(el).opacity) * opacity(el.parentElement);
          opacities.set(el, o);
        }
        return o;
      };
      /** what is painted at this element: an SVG shape's fill, a box's background; undefined for neither */
      const paint = (el: Element): Rgba | undefined => {
        const cs = getComputedStyle(el);
        if (cs.visibility === 'hidden') return undefined;
        if (el instanceof SVGGeometryElement && !(el instanceof SVGLineElement)) {
          if (cs.fill === 'none' || cs.fill.startsWith('url(')) return undefined;
          return parse(cs.fill, Number(cs.fillOpacity) * opacity(el));
        }
        if (el instanceof HTMLElement) {
          const c = parse(cs.backgroundColor, opacity(el));
          return c && c[3] > 0 ? c : undefined;
        }
        return undefined;
      };

      const root = document.querySelector(scope);
      if (!root) return { checked: 0, failures: [`nothing matches ${scope}`] };
      const shapes = [...root.querySelectorAll<SVGElement>('svg *')];
      const kept = shapes.map((s) => s.style.pointerEvents);
      for (const s of shapes) s.style.pointerEvents = 'auto';
      const failures: string[] = [];
      let checked = 0;
      try {
        for (const t of root.querySelectorAll<SVGTextElement>('svg text')) {
          const text = t.textContent?.trim() ?? '';
          const cs = getComputedStyle(t);
          if (text === '' || cs.visibility === 'hidden' || cs.display === 'none') continue;
          let box = t.getBoundingClientRect();
          if (box.width === 0 || box.height === 0) continue;
          if (box.top < 0 || box.bottom > innerHeight || box.left < 0 || box.right > innerWidth) {
            t.scrollIntoView({ block: 'center', inline: 'center' });
            box = t.getBoundingClientRect();
          }
          const fg = parse(cs.fill, Number(cs.fillOpacity) * opacity(t));
          if (!fg) continue;
          // a text clipped away (outside the plot) is not seen
          const x = box.left + box.width / 2;
          const y = box.top + box.height / 2;
          const stack = document.elementsFromPoint(x, y);
          const at = stack.indexOf(t);
          // a text under an opaque shape (or not hit at all) is not seen
          if (at < 0 || stack.slice(0, at).some((el) => (paint(el)?.[3] ?? 0) >= 1)) continue;
          const layers: Rgba[] = [];
          for (const el of stack.slice(at + 1)) {
            const p = paint(el);
            if (!p) continue;
            layers.push(p);
            if (p[3] >= 1) break;
          }
          let bg: Rgba = [255, 255, 255, 1];
          for (let i = layers.length - 1; i >= 0; i--) bg = over(layers[i] as Rgba, bg);
          const r = ratio(over(fg, bg), bg);
          checked++;
          if (r < min) {
            const rgb = (c: Rgba) => `rgb(${c.slice(0, 3).map(Math.round).join(', ')})`;
            failures.push(`${r.toFixed(2)}:1 "${text.slice(0, 40)}" ${rgb(over(fg, bg))} on ${rgb(bg)}`);
          }
        }
      } finally {
        shapes.forEach((s, i) => {
          s.style.pointerEvents = kept[i] ?? '';
        });
      }
      return { checked, failures };
    },
    { scope, min },
  );
}
