/**
 * Runs too big to ship whole are read in two parts (docs/adr/0008): the
 * skeleton of every step, which the step list, tree, waterfall and graph
 * draw, and the payload of the step the user looks at, fetched on demand
 * (src-shared/run-skeleton.ts turns the two back into Steps).
 * A 100,000-step run is ~43 MB through getRun; its skeleton ~10 MB.
 */

/**
 * Above this many steps a run opens from its skeleton. Measured (npm run bench:ui, quiet machine):
 * a 10,000-step run opens whole in ~0.6 s, well inside its 1 s goal; a 100,000-step one took 5 s.
 */
export const PAGED_ABOVE = 20_000;
