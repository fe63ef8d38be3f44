import { describe, expect, it } from "vitest";
import { action as nicknameAction, loader as nicknameLoader } from "~/routes/shell/settings/nickname";
import { action as readerSettingsAction } from "~/routes/shell/reader/reader-settings";
import { CROSS_SITE_WRITE_MESSAGE } from "~/server/platform/csrf.server";
import { createUser, sessionCookieFor } from "../fixtures/accounts";
import { settle } from "./admin-fixtures";
import { callThroughRoutes } from "./route-chain";

/**
 * A write that carries a cookie must come from this site's pages: a same-origin `Origin`,
 * or `Sec-Fetch-Site: same-origin` (docs/decisions/165). The check sits on the root
 * route, so pages' actions and resource routes alike are behind it.
 */

function nicknamePost(cookie: string, nickname: string, headers: Record<string, string>) {
  return new Request("http://localhost/settings/nickname", {
    method: "POST",
    headers: { Cookie: cookie, "Content-Type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams({ nickname }),
  });
}

async function nicknameOf(cookie: string): Promise<string> {
  const page = await settle(() => callThroughRoutes(nicknameLoader, { request: new Request("http://localhost/settings/nickname", { headers: { Cookie: cookie } }) }));
  return (page.data as { nickname: string }).nickname;
}

describe("a signed-in write", () => {
  it("is refused without a same-origin Origin or Sec-Fetch-Site, and changes nothing", async () => {
    const user = await createUser();
    const cookie = await sessionCookieFor(user.id);
    const before = await nicknameOf(cookie);
    const refused: Record<string, string>[] = [
      {},
      { Referer: "https://evil.example/form.html" },
      // Even a same-origin Referer alone: browsers send Origin on every POST.
      { Referer: "http://localhost/settings/nickname" },
      { Origin: "https://evil.example" },
      { Origin: "null" },
      { Origin: "https://evil.example", "Sec-Fetch-Site": "same-origin" },
      { "Sec-Fetch-Site": "cross-site" },
      { "Sec-Fetch-Site": "same-site" },
      // The client's own X-Forwarded-Host is not the site's host (no proxy is trusted here).
      { Origin: "http://evil.example", "X-Forwarded-Host": "evil.example" },
    ];
    for (const headers of refused) {
      const answer = await settle(() => callThroughRoutes(nicknameAction, { request: nicknamePost(cookie, "跨站改名", headers) }));
      expect([JSON.stringify(headers), answer.status, await answer.response?.text()]).toEqual([JSON.stringify(headers), 403, CROSS_SITE_WRITE_MESSAGE]);
    }
    expect(await nicknameOf(cookie)).toBe(before);

    for (const [headers, nickname] of [
      [{ Origin: "http://localhost" }, "同源改名"],
      [{ "Sec-Fetch-Site": "same-origin" }, "浏览器改名"],
    ] as const) {
      const answer = await settle(() => callThroughRoutes(nicknameAction, { request: nicknamePost(cookie, nickname, headers) }));
      expect(answer.status).toBe(302);
      expect(await nicknameOf(cookie)).toBe(nickname);
    }
  });

  it("to a resource route is refused the same way, a forwarded host included", async () => {
    const user = await createUser();
    const cookie = await sessionCookieFor(user.id);
    const post = (headers: Record<string, string>) =>
      settle(() =>
        callThroughRoutes(readerSettingsAction, {
          request: new Request("http://localhost/reader-settings", {
            method: "POST",
            headers: { Cookie: cookie, Accept: "application/json", "Content-Type": "application/x-www-form-urlencoded", ...headers },
            body: new URLSearchParams({ fontSize: "5", lineHeight: "loose", width: "narrow", background: "sepia" }),
          }),
        }),
      );
    for (const headers of [{}, { Referer: "https://evil.example/" }, { Origin: "https://evil.example", "X-Forwarded-Host": "evil.example" }] as Record<string, string>[]) {
      expect((await post(headers)).status).toBe(403);
    }
    expect((await post({ Origin: "http://localhost" })).status).toBe(200);
    expect((await post({ "Sec-Fetch-Site": "same-origin" })).status).toBe(200);
  });

  it("without any cookie goes on to the route (a script's login, the gateway's notify)", async () => {
    const { loginAction } = await import("~/routes/public/auth-actions.server");
    const user = await createUser();
    const request = new Request("http://localhost/auth/login", {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ email: user.email, password: user.password }),
    });
    const answer = await settle(() => loginAction(request, "10.44.0.1"));
    expect(answer.status).toBe(302);
  });
});
