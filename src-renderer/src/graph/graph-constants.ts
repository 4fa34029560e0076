/** Children shown per page under one parent; more appear behind a "+N more" node. */
export const CHILD_PAGE = 25;
/** In runs of more than this many steps, LOOP_MIN or more consecutive siblings with one name and type fold behind one node. */
export const FOLD_LOOPS_ABOVE = 150;
export const LOOP_MIN = 4;

/**
 * Steps an agent framework creates around the user's own code: LangGraph's
 * start/end markers, channel writes and branch routers, and LangChain's
 * Runnable glue. They carry no decision of their own and in a LangGraph run
 * outnumber the real steps, so the graph hides them by default (their
 * children move up to the nearest shown step) behind a "framework steps"
 * toggle; a wrapper the blame points at is always shown.
 */
const FRAMEWORK_WRAPPERS: RegExp[] = [
  /^__start__$/,
  /^__end__$/,
  /^Runnable(Lambda|Sequence|Parallel|Map|Passthrough|Assign|Pick|Branch|Each|Binding|WithFallbacks|Retry|Callable|Generator)\b/,
  /^Channel(Write|Read)\b/,
  /^Branch<.*>$/,
];

export function isFrameworkWrapper(name: string): boolean {
  return FRAMEWORK_WRAPPERS.some((re) => re.test(name));
}
