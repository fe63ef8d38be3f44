import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ServerProcess } from "../fixtures/processes";
import { serversOnOwnDatabase } from "../fixtures/server-database";
import { signUpAt } from "../fixtures/accounts";
import { waitFor } from "../fixtures/wait";

/**
 * A change of the word list reaches every app process within seconds (docs/product.md#screening,
 * decision 195): two `node server.js` on one PostgreSQL database; a word added on one is
 * refused by the other once the `screening` event has rebuilt its matcher, and a word
 * deleted on the other is allowed again on the first.
 */
const ADMIN = { email: "screening-admin@example.com", password: "screening-admin-password" };

let servers: ServerProcess[] = [];
let stop: (() => Promise<void>) | undefined;

beforeAll(async () => {
  ({ servers, stop } = await serversOnOwnDatabase("inkstone_screening", 2, { ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password }));
}, 120_000);

afterAll(async () => {
  await stop?.();
});

const post = (origin: string, path: string, cookie: string, fields: Record<string, string>) =>
  fetch(`${origin}${path}`, { method: "POST", body: new URLSearchParams(fields), headers: { Origin: origin, Cookie: cookie }, redirect: "manual" });

describe("the word list with two app processes", () => {
  it("a word added on one process is refused on the other within seconds, and allowed again after its deletion", async () => {
    const [a, b] = servers.map((s) => s.origin);
    const user = await signUpAt(a);
    // Both processes screen once before the change: each has built its matcher and listens.
    for (const origin of [a, b]) expect((await post(origin, "/settings/nickname", user, { nickname: `进程甲${origin.slice(-2)}` })).status).toBe(302);

    const login = await post(a, "/xbbadmin", "", { email: ADMIN.email, password: ADMIN.password, redirectTo: "/admin/screening" });
    expect(login.status).toBe(302);
    const admin = login.headers.getSetCookie()[0].split(";")[0];
    const added = await post(a, "/admin/screening", admin, { intent: "add", word: "跨进程词", category: "政治", level: "forbid" });
    expect(added.status).toBe(302);
    const at = Date.now();

    // The process that made the change refuses at once; the other once it has heard of it.
    const refusal = async (origin: string) => {
      const response = await post(origin, "/settings/nickname", user, { nickname: "我是跨 進 程词" });
      return response.status === 400 && (await response.text()).includes("昵称含有禁止使用的词语：「跨进程词」");
    };
    expect(await refusal(a)).toBe(true);
    await waitFor("the other process refuses the new word", () => refusal(b), { timeout: 5_000, interval: 50 });
    expect(Date.now() - at).toBeLessThan(5_000);

    // Deleted through the other process: allowed again on the first.
    const list = await fetch(`${b}/admin/screening?q=跨进程词`, { headers: { Cookie: admin } });
    const id = /name="id" value="(\d+)"/.exec(await list.text())?.[1];
    expect(id).toBeTruthy();
    expect((await post(b, "/admin/screening", admin, { intent: "delete", id: id! })).status).toBe(302);
    await waitFor(
      "the first process allows the deleted word",
      async () => (await post(a, "/settings/nickname", user, { nickname: "我是跨进程词" })).status === 302,
      { timeout: 5_000, interval: 50 },
    );
  });
});
