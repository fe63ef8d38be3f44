/** Limits shared by the comment forms and the server (app/server/comments.server.ts). */
export const COMMENT_MAX_CHARS = 500;
export const REPORT_MAX_CHARS = 200;
