/**
 * The pod history's keys (while no text field has focus), as a profiler's:
 *   ← →  previous / next step of the chosen kinds     Home / End  first step / live     e  next error
 *   /  search steps      n / N  next / previous match     Esc  clear the range
 *   W / S  zoom in / out around the pointer (the selected step, else the centre, when it is off the plot)
 *   A / D  pan while the pointer is over the timeline (elsewhere `d` is the next difference)
 *   shift+← →  pan          + / −  zoom in / out around the selected step (the centre when it is off screen)
 */
import { useEffect, useRef } from 'react';
import { keyZoom, panWindow, type TimeWindow } from '../timeline/viewport.ts';
import type { StepSelection } from './use-step.ts';

/** Whether a key goes to a text field (a checkbox of the step filter keeps the step keys working). */
function typing(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  if (!el) return false;
  if (el.tagName === 'INPUT') return !/^(checkbox|radio|button|submit)$/.test((el as HTMLInputElement).type);
  return el.isContentEditable || /^(TEXTAREA|SELECT)$/.test(el.tagName);
}

export interface HistoryKeyState {
  sel: StepSelection;
  view: TimeWindow | null;
  bounds: TimeWindow;
  cursorTime: number | undefined;
  /** the time under the pointer while it is over the timeline's plot (null off it) */
  pointerTime: { current: number | null };
  setView: (w: TimeWindow | null) => void;
  focusSearch: () => void;
  searchNext: (dir: 1 | -1) => boolean;
  clearRange: () => void;
}

export function useHistoryKeys(state: HistoryKeyState): void {
  const latest = useRef(state);
  latest.current = state;
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (typing(e.target) || e.ctrlKey || e.metaKey || e.altKey) return;
      const s = latest.current;
      const w = s.view ?? s.bounds;
      const pt = s.pointerTime.current;
      const over = pt !== null;
      const at = pt ?? s.cursorTime;
      const k = e.key;
      let handled = true;
      if (k === 'ArrowLeft' && e.shiftKey) s.setView(panWindow(w, -0.2, s.bounds));
      else if (k === 'ArrowRight' && e.shiftKey) s.setView(panWindow(w, 0.2, s.bounds));
      else if (k === 'ArrowLeft') s.sel.prev();
      else if (k === 'ArrowRight') s.sel.next();
      else if (k === 'Home') s.sel.first();
      else if (k === 'End') s.sel.last();
      else if (k === 'e') s.sel.nextError();
      else if (k === '/') s.focusSearch();
      else if (k === 'n') handled = s.searchNext(1);
      else if (k === 'N') handled = s.searchNext(-1);
      else if (k === 'Escape') s.clearRange();
      else if (k === '+' || k === '=') s.setView(keyZoom(w, s.cursorTime, 0.5, s.bounds));
      else if (k === '-' || k === '_') s.setView(keyZoom(w, s.cursorTime, 2, s.bounds));
      else if (k === 'w' || k === 'W') s.setView(keyZoom(w, at, 0.8, s.bounds));
      else if (k === 's' || k === 'S') s.setView(keyZoom(w, at, 1.25, s.bounds));
      else if ((k === 'a' || k === 'A') && over) s.setView(panWindow(w, -0.1, s.bounds));
      else if ((k === 'd' || k === 'D') && over) {
        s.setView(panWindow(w, 0.1, s.bounds));
        e.stopImmediatePropagation();
      } else handled = false;
      if (handled) e.preventDefault();
    };
    // the capture phase: over the timeline, `d` pans and the next-difference key does not also run
    window.addEventListener('keydown', onKey, true);
    return () => window.removeEventListener('keydown', onKey, true);
  }, []);
}
