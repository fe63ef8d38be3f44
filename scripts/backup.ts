// npm run backup [-- --to <directory>]: copies the PGlite data directory, the uploads
// and the session secret into <directory>/inkstone-backup-<time> (default ./backups).
// Stop the server first: the copy refuses while a process has the database open.
import { parseArgs } from "node:util";
import { backup, BackupError } from "./lib/backup";

let to = "backups";
try {
  to = parseArgs({ options: { to: { type: "string" } } }).values.to ?? to;
} catch {
  console.error("用法：npm run backup [-- --to 备份目录]");
  process.exit(2);
}
try {
  const made = await backup(to);
  console.log(`备份完成：${made}`);
} catch (error) {
  if (!(error instanceof BackupError)) throw error;
  console.error(error.message);
  process.exit(error.exitCode);
}
