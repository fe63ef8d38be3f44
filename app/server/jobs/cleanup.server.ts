import { deleteOldFormTokens } from "~/server/platform/form-tokens.server";
import { onShutdown } from "~/server/platform/lifecycle.server";
import { deleteOldResetLinks } from "~/server/identity/password-reset.server";
import { deleteExpiredTxtImports } from "~/server/studio/work-create.server";
import { deleteOldChapterReads } from "~/server/studio/author-stats.server";

/**
 * The hourly clean-up every server process runs (server.js), now and then every hour:
 * staged TXT imports older than a day, form tokens and password reset links older than a
 * week, and reading
 * statistics older than they are shown (docs/decisions/146). Each part is idempotent and
 * safe in several processes at once, so no one process has to be the one. Returns the
 * stop function; the shutdown's draining step stops it too.
 */
export function startHourlyCleanup(everyMs = 3_600_000): () => void {
  const run = () =>
    Promise.all([deleteExpiredTxtImports(), deleteOldFormTokens(), deleteOldResetLinks(), deleteOldChapterReads()]).catch((error) =>
      console.error("hourly clean-up failed", error),
    );
  void run();
  const timer = setInterval(run, everyMs);
  timer.unref();
  const stop = () => clearInterval(timer);
  onShutdown("draining", stop);
  return stop;
}
