/**
 * Mocks for side-effect steps. In a fork experiment a step marked
 * `side_effect: true` (sends an email, writes a ticket, charges a card) must
 * not run for real once per trial; the user registers a stand-in by step name.
 */
type Mock = (...args: never[]) => unknown;

const mocks = new Map<string, Mock>();

/**
 * Use `fn` instead of the step named `name` (or with exactly that replay key, e.g.
 * "agent#0/send_email#1") whenever a forked run would execute it live.
 */
// A mock takes whatever arguments the user's tool takes: the SDK cannot know them.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function registerMock(name: string, fn: (...args: any[]) => unknown): void {
  mocks.set(name, fn as Mock);
}

export function unregisterMock(name: string): void {
  mocks.delete(name);
}

export function clearMocks(): void {
  mocks.clear();
}

export function mockFor(name: string): ((...args: unknown[]) => unknown) | undefined {
  return mocks.get(name) as ((...args: unknown[]) => unknown) | undefined;
}
