/**
 * k0s runs the kubelet as a child process and writes each line the kubelet prints through its own logger
 * (logrus' text form), tagged with the component: `time="2024-08-20 20:41:02" level=info msg="<the kubelet's
 * line, Go-quoted>" component=kubelet stream=stderr`, on its own stderr (journald: `… k0s[pid]: time=…`). The
 * maintainers' advice for the kubelet's log is to grep k0s' for `component=kubelet`. Lines of
 * other components (containerd, etcd, kube-apiserver) and k0s' own are not the kubelet's; a line longer than
 * 16 KiB, which k0s writes in chunks (`chunk=2` …), is not read. Browser-safe; called by classify for a line
 * without a klog header where one is looked for first.
 */
import { readQuoted } from './kv.ts';

const KUBELET = / msg="(?:[^"\\]|\\.)*" component=kubelet( stream=\w+)?(?: |$)/;
const TIME = /time="(\d{4})-(\d\d)-/;

/**
 * The kubelet's line (`text`), the text before the record (`before`) and the date of `time`. `printed`: the
 * record carries a `stream`, so its msg is a line the kubelet printed; without one it may be k0s' own word about
 * the kubelet ("Starting to supervise", "Restarted (3)").
 */
export interface Logrus {
  text: string;
  before: string;
  printed: boolean;
  year?: number;
  month?: number;
}

export function fromLogrus(raw: string): Logrus | undefined {
  if (raw.indexOf(' component=kubelet') < 0) return undefined;
  const m = KUBELET.exec(raw);
  if (!m) return undefined;
  const text = readQuoted(raw, m.index + ' msg='.length).value;
  let start = raw.lastIndexOf('level=', m.index);
  if (start < 0) return undefined;
  const time = raw.lastIndexOf('time="', start);
  if (time >= 0) start = time;
  const out: Logrus = { text, before: raw.slice(0, start), printed: m[1] !== undefined };
  const t = TIME.exec(raw.slice(start, m.index));
  if (t) {
    out.year = Number(t[1]);
    out.month = Number(t[2]);
  }
  return out;
}
