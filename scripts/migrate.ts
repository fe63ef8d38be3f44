// Migrates the database (PGlite under ./data, or DATABASE_URL) and writes missing defaults.
// Never run it against a PGlite directory a running server has open.
const client = await import("~/db/client.server");
console.log(`数据库已迁移（${client.databaseKind}）`);
await client.closeDatabase();
export {};
