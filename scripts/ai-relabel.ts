// npm run ai:relabel
// Puts every generation kept as a plot version into its user's generation log and labels
// those users' chapters and works again (docs/decisions/126): for generations made before
// the log existed. Safe to run again.
export {};
const { openDatabase } = await import("./lib/database");
const client = await openDatabase();
const { rebuildAiLabels } = await import("~/server/catalog/ai-labels.server");
const { refreshWorkCounts } = await import("~/server/catalog/works.server");
try {
  const { users, works } = await rebuildAiLabels(refreshWorkCounts);
  console.log(`已重建 AI 标识：${users} 位用户的生成记录，${works} 部作品`);
} finally {
  await client.closeDatabase();
}
