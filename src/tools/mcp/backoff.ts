/** Reconnect delays: doubling from `baseMs`, never more than `maxMs`. */
export interface BackoffPolicy {
  readonly baseMs: number;
  readonly maxMs: number;
}

/**
 * The wait before reconnect attempt `attempt` (1 for the first retry).
 *
 * Exponential with "equal jitter": half the doubled delay is fixed, half is
 * random. Several worker processes lose the same remote server at the same
 * moment; without jitter they would all knock again at the same moment.
 * `random` is handed in (a number in [0, 1)) so tests can pin it.
 */
export function backoffDelay(
  attempt: number,
  policy: BackoffPolicy,
  random: () => number = Math.random,
): number {
  const exponent = Math.min(Math.max(attempt - 1, 0), 30);
  const ceiling = Math.min(policy.maxMs, policy.baseMs * 2 ** exponent);
  const half = ceiling / 2;
  return Math.round(half + half * Math.min(Math.max(random(), 0), 1));
}
