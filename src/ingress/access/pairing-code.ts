import { randomInt } from "node:crypto";

/** No 0/O, 1/I/L: a code read aloud or retyped from a phone survives. */
export const PAIRING_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789";
export const PAIRING_CODE_LENGTH = 8;
/** How long a code works. */
export const PAIRING_TTL_MS = 60 * 60_000;
/** How many codes one person may be given per hour. */
export const PAIRING_REQUESTS_PER_HOUR = 3;

/** A fresh code from the system's CSPRNG: 31^8 (about 8.5e11) possibilities. */
export function newPairingCode(): string {
  let code = "";
  for (let i = 0; i < PAIRING_CODE_LENGTH; i++) {
    code += PAIRING_ALPHABET[randomInt(PAIRING_ALPHABET.length)];
  }
  return code;
}

/**
 * A code as someone typed it, in the form it was issued: case, spaces and
 * dashes do not matter. Undefined when it cannot be a code at all.
 */
export function readPairingCode(typed: string): string | undefined {
  const code = typed.replace(/[\s-]+/g, "").toUpperCase();
  if (code.length !== PAIRING_CODE_LENGTH) return undefined;
  for (const char of code) if (!PAIRING_ALPHABET.includes(char)) return undefined;
  return code;
}
