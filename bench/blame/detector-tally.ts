/**
 * Precision and recall of failure detection against labels: a run the
 * detector calls failed is a positive; "unknown" (possibly failed, blame
 * stays quiet) counts as not failed and is shown apart.
 */
export interface DetectorTally {
  tp: number;
  fp: number;
  fn: number;
  tn: number;
  unknownFailed: number;
  unknownHealthy: number;
}

export function newDetectorTally(): DetectorTally {
  return { tp: 0, fp: 0, fn: 0, tn: 0, unknownFailed: 0, unknownHealthy: 0 };
}

export function tallyDetector(t: DetectorTally, labelledFailed: boolean, status: 'failed' | 'healthy' | 'unknown'): void {
  const said = status === 'failed';
  if (labelledFailed && said) t.tp++;
  else if (labelledFailed) {
    t.fn++;
    if (status === 'unknown') t.unknownFailed++;
  } else if (said) t.fp++;
  else {
    t.tn++;
    if (status === 'unknown') t.unknownHealthy++;
  }
}

export function detectorLine(label: string, t: DetectorTally): string {
  const p = t.tp + t.fp === 0 ? NaN : t.tp / (t.tp + t.fp);
  const r = t.tp + t.fn === 0 ? NaN : t.tp / (t.tp + t.fn);
  const f = (x: number) => (Number.isNaN(x) ? '–' : `${(100 * x).toFixed(1)}%`);
  return `${label}: precision ${f(p)}, recall ${f(r)} (failed runs called failed ${t.tp}/${t.tp + t.fn}, of the missed ${t.unknownFailed} "unknown"; healthy runs called failed ${t.fp}/${t.fp + t.tn}, ${t.unknownHealthy} "unknown")`;
}
