/**
 * What a streamed foreign import (OTLP/JSON, LangChain run trees) stores, a
 * block at a time: the records and problems waiting for the next commit, and
 * the commit itself. Each block is one transaction; a block that cannot be
 * stored whole is stored record by record (as native blocks are) and what
 * could not be stored is named. The last block also marks the file imported;
 * a cancelled import stores what was mapped and leaves the file to be
 * imported again.
 */
import type { ImportError } from '../../../../src-shared/model';
import type { TraceRecord } from '../../../../src-shared/trace-format';
import type { Db } from '../../store/open-database';
import { createRecordWriter, runIdsOf, touchRuns, type RecordWriter } from '../../store/write-records';
import { dropStaleSyntheticSteps, forgetFileProblems, importErrorsOf, insertImportErrors, noteSyntheticSteps, saveFileState, settleForeignRuns } from '../../store/import-files';
import { collisionMessage, createRunIdResolver, type RunIdResolver } from '../../store/run-id-collisions';
import { openRead } from '../../store/open-read';
import { tallyWellFormed, wellFormedMessages, type WellFormedTally } from '../native/well-formed-text';
import { finish, isDatabaseFault, truncationMessage, type FileImportResult } from '../import-result';
import type { ForeignIssue } from '../foreign/foreign-run';
import type { ColumnarPlan } from './columnar-run-plan';

/**
 * Records per transaction: ~500 OTLP spans, about a MB of rows. Smaller blocks leave less of each block to be
 * promoted to the old generation before its commit: a 500 MB OTLP file peaked at 278–284 MB with 1,024 records
 * against 289–295 MB with 4,096 (goal ≤ 300 MB), and the 46 MB file's import took the same time (best of 3,
 * alternating: 2,188–2,339 ms against 2,284–2,340 ms).
 */
const BLOCK_RECORDS = 1024;
/**
 * Records per transaction of a file read twice (bigger than the one-pass limit), where memory is what is held
 * down: the 500 MB OTLP file peaked at 273–299 MB in six runs (mean 285) with 512 records against 290–308 MB
 * (mean 298) with 1,024, on a day the machine ran the same code ~20 MB higher than the figures above. On the
 * 46 MB file (read once) 512 took ~1.1× the wall time, so the read-once path keeps 1,024.
 */
export const BOUNDED_BLOCK_RECORDS = 512;

export class StreamedWrites {
  /** Records waiting for the next commit (a new array after each: read it afresh, never keep it). */
  pending: TraceRecord[] = [];
  /** Records per transaction (BLOCK_RECORDS; BOUNDED_BLOCK_RECORDS for a file read in bounded memory). */
  blockRecords = BLOCK_RECORDS;
  /** Problems waiting for the next commit. */
  problems: ImportError[] = [];
  /** The file line of each pending record whose step said where it was (stepAdded); 1 for the others. */
  private pendingLines: number[] = [];
  /** Steps whose records were made (for the messages of a stopped import). */
  stepsWritten = 0;
  /** When this read began (made with it): stored with the file's state, so a change made meanwhile is read again. */
  private readonly readAt = Date.now();
  private readonly allProblems: ImportError[] = [];
  private writer: RecordWriter;
  private readonly touched = new Set<string>();
  private recordsWritten = 0;
  private readonly wellFormed: WellFormedTally = new Map();
  /** Made when the first run is planned. */
  private runIds: RunIdResolver | null = null;
  /** Whether the earlier read's problems are gone (with this read's first write: this read says them again). */
  private problemsReplaced = false;
  /** Those problems, for a read that stops before its end (stop). */
  private earlierProblems: ImportError[] | null = null;
  /** The synthetic-looking step ids this read stored, by run (dropStaleSyntheticSteps). */
  private readonly syntheticWritten = new Map<string, Set<string>>();

  constructor(
    readonly db: Db,
    readonly file: string,
    readonly size: number,
    private readonly format: string,
  ) {
    this.writer = createRecordWriter(db);
  }

  /** Problems of the file, stored with the next block. */
  report(issues: ForeignIssue[]): void {
    for (const issue of issues) this.problems.push({ file: this.file, ...issue });
  }

  /** A planned run's id as stored (renamed, and said so, when another file owns it); its records come with its first span. */
  startRun(plan: ColumnarPlan): void {
    const run = plan.run;
    this.runIds ??= createRunIdResolver(this.db, this.file);
    const resolved = this.runIds.resolve(run.runId);
    if (resolved.renamedFrom) this.problems.push({ file: this.file, line: 1, level: 'warning', message: collisionMessage(run.runId, resolved.runId, resolved.renamedFrom.owner) });
    run.runId = resolved.runId;
  }

  /**
   * A turn of run planning (startRun for each run), in one read transaction: outside one, each run's id lookup
   * opened and closed a read of its own, ~13 µs a run (0.34 s for a file of 26,460 one-span traces).
   */
  planning(plan: () => void): void {
    const read = openRead(this.db);
    try {
      plan();
    } finally {
      read.end();
    }
  }

  /**
   * A step's records are pending: counted, their line noted (what the file's reader knew of the step's place;
   * 0 when it did not keep it), and a full block committed.
   */
  stepAdded(line = 0): void {
    this.noteLines(line);
    this.stepsWritten += 1;
    if (this.pending.length >= this.blockRecords) this.commit(false);
  }

  /** Gives the pending records that have no line yet `line` (1, the file's start, when it is not known). */
  private noteLines(line: number): void {
    const lines = this.pendingLines;
    while (lines.length < this.pending.length) lines.push(line > 0 ? line : 1);
  }

  /**
   * A run whose every span was written: its run-end now (named at line 1, as the whole import names it), so that
   * its plan can be let go.
   */
  endRun(plan: ColumnarPlan): void {
    this.noteLines(1);
    const end = plan.runEnd();
    if (!end) return;
    this.pending.push(end);
    this.pendingLines.push(1);
    if (this.pending.length >= this.blockRecords) this.commit(false);
  }

  /** Every step written: the end of each complete run not ended yet, and the last block, which marks the file imported. */
  endRuns(plans: Iterable<ColumnarPlan>): void {
    for (const plan of plans) this.endRun(plan);
    this.commit(true);
  }

  /**
   * One transaction: the pending records (record by record if the block cannot be stored whole), their problems,
   * and at the end the file's state. The last commit of the import (`last`, or a cancel's) also says, once per run,
   * which text had to be made well-formed.
   */
  commit(last: boolean, stopping = last): void {
    const { db, file } = this;
    this.noteLines(1);
    const records = this.pending;
    const lines = this.pendingLines;
    this.pending = [];
    this.pendingLines = [];
    const problems = this.problems;
    this.problems = [];
    tallyWellFormed(records, this.wellFormed);
    // The runs of this block, their ids as stored (made well-formed above). The writer's own list holds every run it
    // wrote: read after each block, it made a file of 100,000 one-span traces quadratic.
    for (const r of records) this.touched.add(r.run_id);
    noteSyntheticSteps(records, this.syntheticWritten);
    if (stopping) for (const message of wellFormedMessages(this.wellFormed)) problems.push({ file, line: 1, level: 'warning', message });
    const apply = (w: RecordWriter, batch: TraceRecord[], first: number) =>
      w.applyBatch(batch, file).forEach((fields, i) => {
        for (const f of fields) problems.push({ file, line: lines[first + i], level: 'warning', message: `${where(batch[i])}: ${truncationMessage(f)}` });
      });
    db.transaction(() => {
      const before = problems.length;
      try {
        db.transaction(() => apply(this.writer, records, 0))();
      } catch (err) {
        // As for native blocks: store what can be stored, record by record, and name what could not.
        if (isDatabaseFault(err)) throw err;
        problems.length = before;
        this.writer = createRecordWriter(db);
        records.forEach((r, k) => {
          try {
            db.transaction(() => apply(this.writer, [r], k))();
          } catch (e) {
            if (isDatabaseFault(e)) throw e;
            problems.push({ file, line: lines[k], level: 'error', message: `${where(r)} (${r.type}): could not be stored (${(e as Error).message}); skipped` });
          }
        });
      }
      this.replaceProblems();
      insertImportErrors(db, problems);
      if (last) {
        // The last block settles every run of the file (a new version each, and its step count).
        dropStaleSyntheticSteps(db, this.syntheticWritten, this.touched);
        settleForeignRuns(db, this.touched);
        saveFileState(db, file, { offset: this.size, line: 0, format: this.format, refused: null, updated_at: this.readAt }, this.size);
      } else {
        // Each other block gives the runs it wrote a new version (their first block's run upsert is the only other
        // write to the run row): a count or index stamped between two blocks is then never taken as current.
        touchRuns(db, runIdsOf(records));
      }
    })();
    this.recordsWritten += records.length;
    for (const p of problems) this.allProblems.push(p);
  }

  /**
   * Ends an import that stops early (cancelled, or its file changed): what was mapped is committed, and said. The
   * earlier read's problems about lines go back: the rows of the blocks this read did not reach stand as that read
   * stored them (a field it truncated, a span it named), and the file is read again later, which replaces them all.
   * Its line-0 problems (an earlier cancel) are not put back: this stop says its own.
   */
  stop(): void {
    this.commit(false, true);
    const earlier = this.earlierProblems?.filter((p) => p.line > 0);
    if (earlier?.length) this.db.transaction(() => insertImportErrors(this.db, earlier))();
  }

  /**
   * Stops between blocks and says what is missing: while writing, what was mapped is committed; before, only
   * the problems are stored. `reading` names what the first passes read ("spans", "runs").
   */
  cancel(bytesDone: number, writing: boolean, reading: string): void {
    this.problems.push({
      file: this.file,
      line: 0,
      level: 'warning',
      message: `import cancelled at byte ${bytesDone} of ${this.size} (${writing ? `${this.stepsWritten} step(s) stored` : `while reading the ${reading}, before any was stored`}); import the file again to finish it`,
    });
    if (writing) {
      this.stop();
    } else {
      // Nothing of this read is stored: the earlier read's problems still describe what is, and this read's (a run
      // id renamed while planning) would name runs that were not written. Only the cancel is added.
      const problems = this.problems.slice(-1);
      this.problems = [];
      this.db.transaction(() => insertImportErrors(this.db, problems))();
      for (const p of problems) this.allProblems.push(p);
    }
  }

  /** The file's earlier problems go with this read's first write (inside its transaction). */
  private replaceProblems(): void {
    if (this.problemsReplaced) return;
    this.earlierProblems = importErrorsOf(this.db, this.file);
    forgetFileProblems(this.db, this.file);
    this.problemsReplaced = true;
  }

  result(newErrors: ImportError[]): FileImportResult {
    for (const p of this.allProblems) newErrors.push(p);
    return finish(this.db, this.file, [...this.touched], newErrors, this.recordsWritten);
  }
}

/** A record's run and step, for its problems. */
function where(r: TraceRecord): string {
  return 'step_id' in r && typeof r.step_id === 'string' ? `run ${r.run_id}, step ${r.step_id}` : `run ${r.run_id}`;
}
