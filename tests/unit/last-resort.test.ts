import { describe, expect, it } from "vitest";
import { lastResortMiddleware, SERVER_ERROR_MESSAGE } from "~/server/platform/request.server";

type Args = Parameters<typeof lastResortMiddleware>[0];
const args = {} as Args;
const run = (answer: Response) => lastResortMiddleware(args, async () => answer) as Promise<Response>;

describe("a resource route's crash", () => {
  it("is answered in Chinese with the same 500, instead of React Router's English text", async () => {
    // What React Router answers for a resource route that threw (its last-resort response).
    const english = new Response("Unexpected Server Error", { status: 500, headers: { "Content-Type": "text/plain" } });
    const answer = await run(english);
    expect(answer.status).toBe(500);
    expect(answer.headers.get("Content-Type")).toBe("text/plain; charset=utf-8");
    expect(await answer.text()).toBe(SERVER_ERROR_MESSAGE);
  });

  it("leaves every other answer as it is", async () => {
    const own = new Response("生成失败", { status: 500, headers: { "Content-Type": "text/plain" } });
    expect(await (await run(own)).text()).toBe("生成失败");
    const json = Response.json({ error: "x" }, { status: 500 });
    expect(await (await run(json)).json()).toEqual({ error: "x" });
    const ok = new Response("ok");
    expect(await run(ok)).toBe(ok);
  });
});
