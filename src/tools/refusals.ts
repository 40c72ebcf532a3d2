/** An error class whose instances are expected refusals (a limit, a bad argument), not failures. */
type RefusalClass = abstract new (...args: never[]) => Error;

/**
 * Runs a tool's work; an error of one of the `refusals` classes becomes the
 * tool's answer (its message says what to do instead), and anything else is
 * a real failure for the runner.
 */
export async function answering(
  run: () => Promise<string>,
  refusals: readonly RefusalClass[],
): Promise<string> {
  try {
    return await run();
  } catch (error) {
    if (refusals.some((refusal) => error instanceof refusal)) return (error as Error).message;
    throw error;
  }
}
