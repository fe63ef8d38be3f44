import { periodicJob } from "~/server/platform/job-runner.server";
import { deleteOldFormTokens } from "~/server/platform/form-tokens.server";
import { deleteOldResetLinks } from "~/server/identity/password-reset.server";
import { deleteOldPhoneCodes } from "~/server/identity/phone-verification.server";
import { deleteExpiredTxtImports } from "~/server/studio/work-create.server";
import { deleteOldChapterReads } from "~/server/studio/author-stats.server";

/**
 * The hourly clean-up every server process runs, at start and then every hour: staged
 * TXT imports and phone codes older than a day, form tokens and password reset links older than a week,
 * and reading statistics older than they are shown (docs/decisions/146). Each part is
 * idempotent and safe in several processes at once, so no one process has to be the one.
 */
const CLEANUP_EVERY_MS = 3_600_000;

export const cleanupJob = periodicJob({
  name: "cleanup",
  failure: "hourly clean-up failed",
  everyMs: () => CLEANUP_EVERY_MS,
  run: () => Promise.all([deleteExpiredTxtImports(), deleteOldFormTokens(), deleteOldResetLinks(), deleteOldPhoneCodes(), deleteOldChapterReads()]),
  atStart: true,
  whenBusy: "skip",
});

/** Starts the clean-up (once per process); returns its stop. The shutdown's draining step stops it too. For tests; server.js runs it through jobs/registry. @internal */
export function startHourlyCleanup(everyMs = CLEANUP_EVERY_MS): () => void {
  cleanupJob.start(everyMs);
  return () => void cleanupJob.stop();
}
