/**
 * Distinct strings numbered in order of first use: a column of 100,000 names, types or statuses becomes
 * numbers into a list of a few dozen strings. Used by the streaming importer (span names), the run graph
 * (step names, so blame's loops compare numbers) and the paged run read (the skeleton's word list).
 */
export class StringTable {
  /** The distinct strings; a string's number is its position here. */
  readonly strings: string[] = [];
  private readonly index = new Map<string, number>();

  /** The number of `s`, given it the first time it is seen. */
  intern(s: string): number {
    let i = this.index.get(s);
    if (i === undefined) {
      i = this.strings.length;
      this.strings.push(s);
      this.index.set(s, i);
    }
    return i;
  }
}
