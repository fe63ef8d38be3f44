// npm run admin:create -- --email admin@example.com [--password ...]
// Without --password it reads ADMIN_PASSWORD, else asks on the terminal (or reads stdin).
import { createInterface } from "node:readline/promises";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: { email: { type: "string" }, password: { type: "string" } },
});
const email = values.email?.trim().toLowerCase();
if (!email || !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) {
  console.error("用法：npm run admin:create -- --email admin@example.com [--password 密码]");
  process.exit(2);
}

async function readPassword(): Promise<string> {
  if (values.password) return values.password;
  if (process.env.ADMIN_PASSWORD) return process.env.ADMIN_PASSWORD;
  const rl = createInterface({ input: process.stdin, output: process.stdout, terminal: process.stdin.isTTY });
  const answer = await rl.question("管理员密码：");
  rl.close();
  return answer.trim();
}

const password = await readPassword();
const { PASSWORD_MIN_LENGTH } = await import("~/schemas/auth");
if (password.length < PASSWORD_MIN_LENGTH) {
  console.error(`密码至少需要 ${PASSWORD_MIN_LENGTH} 个字符`);
  process.exit(2);
}

const { openDatabase } = await import("./lib/database");
const client = await openDatabase();
const { createOrResetAdmin } = await import("~/server/identity/admin-provision.server");
try {
  const created = await createOrResetAdmin(email, password);
  console.log(created ? `已创建管理员 ${email}` : `管理员 ${email} 已存在，已重设密码`);
} finally {
  await client.closeDatabase();
}
