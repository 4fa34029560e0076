/** How far a big file's import has got (the `import-progress` event), and how `tb import`'s status line and the runs list's banner say it. */

export interface ImportProgress {
  file: string;
  /** `index`: reading every span (OTLP) or run (LangChain run tree) once to plan the runs; `write`: storing (reading the file again, except an OTLP file of up to 48 MiB, whose spans the first pass kept). */
  phase: 'index' | 'write';
  bytesDone: number;
  bytesTotal: number;
}

export interface ImportProgressText {
  /** The file's name without its folder (a status line is one row). */
  name: string;
  /** Percent of the current pass. */
  percent: number;
  /** "reading spans 41% (190 of 463 MB)" */
  status: string;
}

export function describeImportProgress(p: ImportProgress): ImportProgressText {
  const percent = p.bytesTotal > 0 ? Math.floor((100 * p.bytesDone) / p.bytesTotal) : 0;
  const mb = (b: number) => (b / 1e6).toFixed(b < 10e6 ? 1 : 0);
  const what = p.phase === 'index' ? 'reading spans' : 'storing steps';
  return { name: p.file.split(/[\\/]/).pop() || p.file, percent, status: `${what} ${percent}% (${mb(p.bytesDone)} of ${mb(p.bytesTotal)} MB)` };
}
