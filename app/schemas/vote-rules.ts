// The vote counts a reader picks from, without zod: the reader's vote box ships only this
// (docs/decisions/243); votes.ts validates with them.

/** How many votes the cast forms offer at once (decision 222); the server takes 1 to 100. */
export const VOTE_COUNTS = [1, 2, 5, 10] as const;
