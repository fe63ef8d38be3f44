// Migrates the database (PGlite under ./data, or DATABASE_URL) and writes missing defaults.
// With PGlite it refuses while a server holds the data directory (docs/decisions/075).
import { openDatabase } from "./lib/database";

const client = await openDatabase();
console.log(`数据库已迁移（${client.databaseKind}）`);
await client.closeDatabase();
