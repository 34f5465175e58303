/** A colour family for a kubectl STATUS string: good, pending, bad, done. */
export function statusTone(status: string): 'good' | 'pending' | 'bad' | 'done' {
  if (status === 'Running') return 'good';
  if (status === 'Completed' || status === 'Succeeded') return 'done';
  if (/BackOff|Err|Error|OOMKilled|Failed|ExitCode|Signal|NotReady|Unknown|Evicted/.test(status))
    return 'bad';
  return 'pending';
}
