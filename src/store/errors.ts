/**
 * Bad input at the store's boundary: a change that cannot be stored as given.
 * The message names the offending value and how to fix it.
 */
export class StoreInputError extends Error {
  override readonly name = "StoreInputError";
}
