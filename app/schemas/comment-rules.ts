// The comment forms' limits, without zod: the reader ships only this (docs/decisions/243);
// comments.ts validates with them.

/** Limits shared by the comment forms and the server (app/server/community/comments.server.ts). */
export const COMMENT_MAX_CHARS = 500;

export const REPORT_MAX_CHARS = 200;
