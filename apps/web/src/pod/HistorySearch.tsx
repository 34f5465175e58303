/**
 * Finding a step: a text search over the steps' words (`/` focuses it, Enter or `n` the next match, `N`
 * the previous; Esc leaves it) and a jump to a clock time (hh:mm:ss, Enter selects the first step at or
 * after it: the first the table prints with that time). Test ids: `step-search`, `step-search-count`, `step-jump`, `step-jump-error`.
 */
import { type RefObject, useState } from 'react';

export function HistorySearch({
  inputRef,
  query,
  onQuery,
  matches,
  current,
  onNext,
  onJump,
}: {
  inputRef: RefObject<HTMLInputElement | null>;
  query: string;
  onQuery: (q: string) => void;
  /** how many steps match */
  matches: number;
  /** the 1-based position of the selected step among the matches, 0 when it is not one */
  current: number;
  onNext: (dir: 1 | -1) => void;
  /** false when the text is not a clock time */
  onJump: (text: string) => boolean;
}) {
  const [jump, setJump] = useState('');
  const [bad, setBad] = useState(false);
  return (
    <div className="history-search">
      <input
        ref={inputRef}
        type="search"
        value={query}
        placeholder="search steps (/)"
        aria-label="search steps"
        data-testid="step-search"
        onChange={(e) => onQuery(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter') onNext(e.shiftKey ? -1 : 1);
          else if (e.key === 'Escape') e.currentTarget.blur();
          else return;
          e.preventDefault();
        }}
      />
      {query.trim() !== '' && (
        <span className="mono dim" data-testid="step-search-count">
          {matches === 0 ? 'no match' : `${current > 0 ? current : '–'} / ${matches}`}
        </span>
      )}
      <input
        type="text"
        value={jump}
        placeholder="go to hh:mm:ss"
        aria-label="go to a time (hh:mm:ss)"
        aria-invalid={bad || undefined}
        className="mono"
        size={12}
        data-testid="step-jump"
        onChange={(e) => {
          setJump(e.target.value);
          setBad(false);
        }}
        onKeyDown={(e) => {
          if (e.key !== 'Enter') return;
          e.preventDefault();
          setBad(!onJump(jump));
        }}
      />
      {bad && (
        <span className="bad" data-testid="step-jump-error">
          not a time: hh:mm:ss
        </span>
      )}
    </div>
  );
}
