/**
 * The confirmation before a pod is deleted: names the pod, shows the grace period the kubelet will give its
 * containers (the pod's own terminationGracePeriodSeconds unless changed here), and deletes only on the
 * explicit button. A modal <dialog>: Escape and "cancel" close it with nothing sent.
 */
import { useEffect, useRef, useState } from 'react';

export interface DeleteTarget {
  namespace: string;
  name: string;
  graceS: number;
}

export function DeletePodDialog({
  target,
  onConfirm,
  onClose,
}: {
  target: DeleteTarget | null;
  onConfirm: (target: DeleteTarget, graceS: number) => void;
  onClose: () => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const [grace, setGrace] = useState('');
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (target && !d.open) {
      setGrace(String(target.graceS));
      setError(null);
      d.showModal();
    } else if (!target && d.open) d.close();
  }, [target]);

  const confirm = () => {
    if (!target) return;
    const seconds = Number(grace.trim());
    if (grace.trim() === '' || !Number.isInteger(seconds) || seconds < 0) {
      setError('grace period must be a whole number of seconds ≥ 0');
      return;
    }
    onConfirm(target, seconds);
  };

  return (
    <dialog
      ref={ref}
      className="confirm"
      aria-labelledby="delete-title"
      data-testid="delete-dialog"
      onClose={onClose}
    >
      {target && (
        <form
          method="dialog"
          onSubmit={(e) => {
            e.preventDefault();
            confirm();
          }}
        >
          <h2 id="delete-title">
            Delete pod{' '}
            <span className="mono">
              {target.namespace}/{target.name}
            </span>
            ?
          </h2>
          <p className="sub">
            The kubelet stops its containers, giving each the grace period below before it is killed.
          </p>
          <label className="field">
            <span className="k">grace period (s)</span>
            <input
              type="number"
              min={0}
              value={grace}
              onChange={(e) => setGrace(e.target.value)}
              data-testid="delete-grace"
            />
          </label>
          {error && (
            <p className="bad" role="alert">
              {error}
            </p>
          )}
          <div className="toolbar">
            <button type="button" onClick={onClose} data-testid="delete-cancel">
              cancel
            </button>
            <button type="submit" className="danger" data-testid="delete-confirm">
              delete {target.name}
            </button>
          </div>
        </form>
      )}
    </dialog>
  );
}
