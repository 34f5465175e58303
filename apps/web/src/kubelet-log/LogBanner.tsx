/**
 * The top bar of a kubelet-log replay: the file, its line counts (lines kept raw shown, never hidden), a
 * node picker when the log interleaves several kubelets (each node by its name, with its pods, its pods in
 * trouble and the time its lines span), a link to the nodes and their pods in trouble (`#/nodes`), and Share: the log is uploaded to the server
 * (POST /api/v1/imports) and a link that opens the same replay from it is shown. Test ids: `log-banner`,
 * `log-raw-count`, `log-node`, `log-fleet`, `log-share`, `log-share-link`.
 */
import { useState } from 'react';
import type { ReplayStore } from '../lib/replay.ts';
import { clockText } from '../node/liveness.ts';
import { logFleet, logReplay, openAt } from './open.ts';
import { shareLog } from './shared.ts';

export function LogBanner({
  replay,
  onReplay,
  onExit,
}: {
  replay: ReplayStore;
  onReplay: (store: ReplayStore) => void;
  onExit: () => void;
}) {
  const log = replay.log;
  const [share, setShare] = useState<{ state: 'idle' | 'sending' } | { state: 'error'; message: string }>({
    state: 'idle',
  });
  const [sharedId, setSharedId] = useState(log?.sharedId);
  if (!log) return null;
  const s = log.summary;
  const fleet = logFleet(log);
  const file = log.file;
  const link = sharedId ? `${window.location.origin}${window.location.pathname}#/imports/${sharedId}` : null;

  const doShare = async () => {
    if (!file) return;
    setShare({ state: 'sending' });
    try {
      const id = await shareLog(file, replay.name);
      setSharedId(id);
      log.sharedId = id;
      setShare({ state: 'idle' });
    } catch (e) {
      setShare({ state: 'error', message: (e as Error).message });
    }
  };

  return (
    <span className="conn conn-replay log-banner" data-testid="log-banner">
      <span>
        kubelet log: <b>{replay.name}</b>
      </span>
      <span className="dim mono" data-testid="log-counts">
        {s.lines} lines · {s.understood} read ·{' '}
        <span data-testid="log-raw-count" title="kubelet lines no rule reads, kept as they are">
          {s.raw} kept raw
        </span>{' '}
        · {s.other} other programs · {replay.trace.events.length} events
      </span>
      <a href="#/nodes" data-testid="log-fleet" className="mono">
        {fleet.nodes.length} {fleet.nodes.length === 1 ? 'node' : 'nodes'} · {fleet.trouble.length} pods in
        trouble
      </a>
      {s.nodes.length > 1 && (
        <label>
          node{' '}
          <select
            data-testid="log-node"
            value={log.node ?? ''}
            onChange={(e) => openAt('#/', logReplay(replay.name, log, e.target.value), onReplay)}
          >
            {fleet.nodes.map((n) => (
              <option key={n.key} value={n.key}>
                {`${n.name}${n.namedBy === 'line' ? ` (${n.key})` : ''} · ${n.pods} pods · ${n.inTrouble} in trouble · ${clockText(n.first)}–${clockText(n.last)}`}
              </option>
            ))}
          </select>
        </label>
      )}
      {file && !link && (
        <button
          type="button"
          className="small"
          data-testid="log-share"
          disabled={share.state === 'sending'}
          onClick={() => void doShare()}
          title="upload the log to this server and get a link that opens this replay"
        >
          {share.state === 'sending' ? 'sharing…' : 'Share'}
        </button>
      )}
      {link && (
        <a href={link} data-testid="log-share-link" className="mono">
          {link}
        </a>
      )}
      {share.state === 'error' && <span className="bad">share failed: {share.message}</span>}
      <button type="button" className="small" onClick={onExit} data-testid="replay-exit">
        back to live
      </button>
    </span>
  );
}
