/**
 * What a parser of outside text (a config value, a model's arguments)
 * answers instead of throwing: the value under its name, or the problem,
 * worded to name the offending token and the fix.
 *
 * @example
 * type RateReading = Reading<"rate", Rate>;
 * const reading = parseRate("20/10m");
 * if (!reading.ok) return reading.problem;
 * reading.rate.windowMs; // 600000
 */
export type Reading<Name extends string, T> =
  | ({ readonly ok: true } & { readonly [K in Name]: T })
  | Refusal;

/** The failing side of a {@link Reading}. */
export interface Refusal {
  readonly ok: false;
  readonly problem: string;
}
