// The password's limits, without zod: the login dialog in every page's layout shows them
// and ships only this (docs/decisions/243); auth.ts validates with them.

export const PASSWORD_MIN_LENGTH = 8;
/** Limited in bytes: scrypt cost is per byte and a Chinese character is 3 bytes. */
export const PASSWORD_MAX_BYTES = 256;
