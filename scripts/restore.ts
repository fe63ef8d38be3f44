// npm run restore -- <backup directory>: puts a backup made by `npm run backup` back.
// The current data is moved aside (<name>.before-restore-<time>), never deleted. Stop the
// server first: the restore refuses while a process has the database open.
import { parseArgs } from "node:util";
import { BackupError, restore } from "./lib/backup";

let from: string | undefined;
try {
  const { positionals } = parseArgs({ allowPositionals: true, options: {} });
  from = positionals.length === 1 ? positionals[0] : undefined;
} catch {
  from = undefined;
}
if (!from) {
  console.error("用法：npm run restore -- 备份目录");
  process.exit(2);
}
try {
  const movedAside = await restore(from);
  console.log(`已从 ${from} 恢复。`);
  for (const moved of movedAside) console.log(`  原有数据已移到 ${moved}`);
} catch (error) {
  if (!(error instanceof BackupError)) throw error;
  console.error(error.message);
  process.exit(error.exitCode);
}
