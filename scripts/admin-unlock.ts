// npm run admin:unlock -- user@example.com
// Forgets the e-mail's failed logins (user login and /xbbadmin), so a locked-out person
// can sign in again at once (docs/decisions/046-login-lockout.md).
import { parseArgs } from "node:util";

function emailArgument(): string | undefined {
  try {
    const { positionals } = parseArgs({ allowPositionals: true, options: {} });
    const email = positionals[0]?.trim().toLowerCase();
    return positionals.length === 1 && email && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email) ? email : undefined;
  } catch {
    return undefined; // an unknown option
  }
}

const email = emailArgument();
if (!email) {
  console.error("用法：npm run admin:unlock -- user@example.com");
  process.exit(2);
}

const { openDatabase } = await import("./lib/database");
const client = await openDatabase();
const { clearLoginFailures } = await import("~/server/identity/login-failures.server");
try {
  const cleared = await clearLoginFailures(email);
  console.log(cleared > 0 ? `已解除 ${email} 的登录限制（清除 ${cleared} 条失败记录）` : `${email} 没有登录失败记录`);
} finally {
  await client.closeDatabase();
}
