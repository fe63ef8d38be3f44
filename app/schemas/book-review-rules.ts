// The 书评 forms' limits, without zod: the reader ships only this (docs/decisions/243);
// book-reviews.ts validates with them.

/** Limits shared by the 书评 forms and the server (app/server/community/book-reviews.server.ts, decision 211). */
export const REVIEW_MIN_CHARS = 10;

export const REVIEW_MAX_CHARS = 5000;

export const REVIEW_REPLY_MAX_CHARS = 1000;

export const REVIEW_REPORT_MAX_CHARS = 200;

/** Fewer shown ratings than this: the work shows 评分人数不足 instead of an average (decision 211). */
export const REVIEW_MIN_RATINGS = 5;
