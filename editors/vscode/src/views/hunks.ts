// Line hunks for the review before a write and the Changes view (spec/sessions.md §4.4, §13.4):
// the maximal runs of changed lines between two texts, in the server's shape
// `{oldStart, oldLines, newStart, newLines}` (0-based lines, terminators kept), and the edits
// the review makes with them (reject a hunk: its lines go back to the current file's; accept:
// back to the proposal's). Pure: unit-tested in plain Node.
import type { Hunk } from '../lsp_ext';

export type { Hunk };

/** The lines of a text, each with its terminator (the last one may have none). */
export function splitLines(text: string): string[] {
  const out: string[] = [];
  let at = 0;
  while (at < text.length) {
    const nl = text.indexOf('\n', at);
    const end = nl < 0 ? text.length : nl + 1;
    out.push(text.slice(at, end));
    at = end;
  }
  return out;
}

/** Above this many cells the changed middle is one hunk (the LCS table would be too big). */
const MAX_CELLS = 4_000_000;

/** The hunks from `a` to `b`: the common prefix and suffix are trimmed, the middle diffed by a
 * longest common subsequence of lines. */
export function lineHunks(a: string, b: string): Hunk[] {
  const x = splitLines(a);
  const y = splitLines(b);
  let pre = 0;
  while (pre < x.length && pre < y.length && x[pre] === y[pre]) pre++;
  let suf = 0;
  while (suf < x.length - pre && suf < y.length - pre && x[x.length - 1 - suf] === y[y.length - 1 - suf]) suf++;
  const xs = x.slice(pre, x.length - suf);
  const ys = y.slice(pre, y.length - suf);
  if (xs.length === 0 && ys.length === 0) return [];
  if (xs.length === 0 || ys.length === 0 || (xs.length + 1) * (ys.length + 1) > MAX_CELLS) {
    return [{ oldStart: pre, oldLines: xs.length, newStart: pre, newLines: ys.length }];
  }
  const n = xs.length;
  const m = ys.length;
  const w = m + 1;
  // lcs[i*w + j]: the LCS length of xs[i..] and ys[j..]
  const lcs = new Int32Array((n + 1) * w);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i * w + j] = xs[i] === ys[j] ? lcs[(i + 1) * w + j + 1] + 1 : Math.max(lcs[(i + 1) * w + j], lcs[i * w + j + 1]);
    }
  }
  const hunks: Hunk[] = [];
  let i = 0;
  let j = 0;
  let open: Hunk | undefined;
  const close = () => {
    if (open) hunks.push(open);
    open = undefined;
  };
  while (i < n || j < m) {
    if (i < n && j < m && xs[i] === ys[j]) {
      close();
      i++;
      j++;
    } else {
      if (!open) open = { oldStart: pre + i, oldLines: 0, newStart: pre + j, newLines: 0 };
      if (j < m && (i >= n || lcs[i * w + j + 1] >= lcs[(i + 1) * w + j])) {
        open.newLines++;
        j++;
      } else {
        open.oldLines++;
        i++;
      }
    }
  }
  close();
  return hunks;
}

/** The hunk (of `hunks`, from some text to the current one) that holds 0-based line `line` of
 * the current text; a deletion (no new lines) sits at the line after it or, at the end, the
 * line before it. */
export function hunkAt(hunks: Hunk[], line: number): Hunk | undefined {
  return (
    hunks.find((h) => h.newLines > 0 && line >= h.newStart && line < h.newStart + h.newLines) ??
    hunks.find((h) => h.newLines === 0 && (line === h.newStart || line === h.newStart - 1))
  );
}

/** `current` with the hunk at `line` (from `source` to `current`) replaced by `source`'s lines:
 * with `source` = the file as it is, the hunk is rejected; with the proposal, it is taken again.
 * Undefined when no hunk is there. */
export function replaceHunkAt(source: string, current: string, line: number): string | undefined {
  const h = hunkAt(lineHunks(source, current), line);
  if (!h) return undefined;
  const src = splitLines(source);
  const cur = splitLines(current);
  return [...cur.slice(0, h.newStart), ...src.slice(h.oldStart, h.oldStart + h.oldLines), ...cur.slice(h.newStart + h.newLines)].join('');
}

/** The lines of a hunk as a short unified text (`-` old lines, `+` new lines, terminators dropped). */
export function hunkText(before: string | null, after: string | null, h: Hunk): string {
  const a = splitLines(before ?? '').slice(h.oldStart, h.oldStart + h.oldLines);
  const b = splitLines(after ?? '').slice(h.newStart, h.newStart + h.newLines);
  const strip = (l: string) => l.replace(/\r?\n$/, '');
  return [...a.map((l) => `-${strip(l)}`), ...b.map((l) => `+${strip(l)}`)].join('\n');
}
