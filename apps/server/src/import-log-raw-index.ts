/**
 * The import-log command's second output (`--raw-index FILE`): the log's unread entries as raw-line records
 * (core raw-record.ts, written by its rawRecordLine), one JSON array a line in the order of the trace they were
 * left out of: the file a server's import keeps as `raw.ndjson`, its offsets found the same way (each line's
 * start, imports/raw-file.ts LineStarts). The line starts are read in one pass over the input as it was read:
 * the file itself, or the copy of stdin or of a gzip or UTF-16 file the command read from (so inflated, UTF-8
 * bytes). Entries past that copy (stdin beyond the 256 MiB it keeps) have offsets -1: their line numbers only.
 * Memory: 8 bytes a line of the input, one block, and one block of output.
 */
import { closeSync, openSync, readSync, writeSync } from 'node:fs';
import { type RawEntries, rawRecordLine } from '@syncscope/core/kubelet-log';
import { LineStarts } from './imports/raw-file.ts';

const BLOCK = 1 << 20;

/** Where each line of `source` starts, and its size. */
function lineStarts(source: string): { lines: LineStarts; size: number } {
  const lines = new LineStarts();
  const fd = openSync(source, 'r');
  let size = 0;
  try {
    const buf = Buffer.allocUnsafe(BLOCK);
    for (let got = readSync(fd, buf, 0, BLOCK, size); got > 0; got = readSync(fd, buf, 0, BLOCK, size)) {
      lines.scan(buf.subarray(0, got), size);
      size += got;
    }
  } finally {
    closeSync(fd);
  }
  return { lines, size };
}

/** Writes `entries` to `out` (replacing it), their offsets read from the bytes of `source`; how many. */
export function writeRawIndex(entries: RawEntries, source: string | undefined, out: string): number {
  if (source === undefined) throw new Error('the input was not kept to read the offsets from');
  const { lines, size } = lineStarts(source);
  const fd = openSync(out, 'w');
  try {
    let text = '';
    for (let i = 0; i < entries.size; i++) {
      const e = entries.at(i);
      const start = lines.of(e.line);
      const next = lines.of(e.line + 1);
      text += rawRecordLine(e, start, start < 0 ? -1 : next >= 0 ? next : size);
      if (text.length >= BLOCK) {
        writeSync(fd, text);
        text = '';
      }
    }
    if (text !== '') writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
  return entries.size;
}
