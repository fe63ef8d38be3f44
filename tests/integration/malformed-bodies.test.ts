import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "~/db/client.server";
import { profiles } from "~/db/schema";
import { FORM_MESSAGES } from "~/server/platform/form-data.server";
import { createUser, sessionCookieFor } from "../fixtures/accounts";
import { insertWorks } from "../fixtures/works";
import { adminCookieFor, createAdmin, settle, type RouteResult } from "./admin-fixtures";
import { importRoute, routeTree, runRoute, type RouteNode } from "./route-chain";

/**
 * Every route with an action, read from app/routes.ts, gets bodies no form sends: each
 * must answer 4xx with a Chinese message, never 500, before it changes anything
 * (docs/architecture.md#forms-and-errors).
 */

const encoder = new TextEncoder();
const bytes = (...parts: (string | number[])[]) =>
  Buffer.concat(parts.map((p) => (typeof p === "string" ? Buffer.from(encoder.encode(p)) : Buffer.from(p))));
const part = (name: string, value: string) => `--XyZ\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;

const MALFORMED: { name: string; contentType: string | null; body: Buffer; message: string }[] = [
  { name: "JSON", contentType: "application/json", body: bytes('{"intent":"create"}'), message: FORM_MESSAGES.notAForm },
  { name: "text/plain", contentType: "text/plain;charset=UTF-8", body: bytes("intent=create"), message: FORM_MESSAGES.notAForm },
  { name: "no content type", contentType: null, body: bytes("intent=create"), message: FORM_MESSAGES.notAForm },
  { name: "multipart without boundary", contentType: "multipart/form-data", body: bytes(part("intent", "create"), "--XyZ--\r\n"), message: FORM_MESSAGES.malformed },
  { name: "multipart cut short", contentType: "multipart/form-data; boundary=XyZ", body: bytes(part("intent", "create").slice(0, 50)), message: FORM_MESSAGES.malformed },
  { name: "invalid UTF-8 (URL-encoded)", contentType: "application/x-www-form-urlencoded", body: bytes("intent=%FF%FE&name=x"), message: FORM_MESSAGES.notUtf8 },
  { name: "invalid UTF-8 (multipart)", contentType: "multipart/form-data; boundary=XyZ", body: bytes('--XyZ\r\nContent-Disposition: form-data; name="intent"\r\n\r\n', [0xc3, 0x28], "\r\n--XyZ--\r\n"), message: FORM_MESSAGES.notUtf8 },
  { name: "NUL in a field (URL-encoded)", contentType: "application/x-www-form-urlencoded", body: bytes("intent=a%00b&nickname=a%00b"), message: FORM_MESSAGES.controlCharacter },
  // Conform's own control fields, which no form of this app sends (docs/decisions/193): its
  // parser throws on the first and would otherwise run a "validate" without answering it.
  { name: "Conform intent that is not JSON", contentType: "application/x-www-form-urlencoded", body: bytes("intent=create&nickname=x&__intent__=validate"), message: FORM_MESSAGES.malformed },
  { name: "Conform validate intent", contentType: "application/x-www-form-urlencoded", body: bytes(`intent=create&nickname=x&__intent__=${encodeURIComponent('{"type":"validate","payload":{"name":"nickname"}}')}`), message: FORM_MESSAGES.malformed },
  { name: "Conform state (multipart)", contentType: "multipart/form-data; boundary=XyZ", body: bytes(part("intent", "create"), part("__state__", "{"), "--XyZ--\r\n"), message: FORM_MESSAGES.malformed },
  { name: "NUL in a field (multipart)", contentType: "multipart/form-data; boundary=XyZ", body: bytes(part("intent", "a\u0000b"), "--XyZ--\r\n"), message: FORM_MESSAGES.controlCharacter },
];

/**
 * Routes whose action does not read a form, with what they answer instead. Each is a
 * decision: the logouts end the session whatever the body (a same-origin POST is all they
 * need); the payment gateway's notify answers its protocol's "fail"; /work/:id sends
 * every method on to /works/:id (308 keeps the method and body, and that action answers);
 * the admin catch-alls answer every method alike.
 */
const NOT_A_FORM: Record<string, (r: RouteResult, body: string) => void> = {
  "/auth/logout": (r) => expect(r.status).toBe(302),
  "/admin/logout": (r) => expect(r.status).toBe(302),
  "/api/notify": (r, body) => expect([r.status, body]).toEqual([200, "fail"]),
  "/work/:id": (r) => expect([r.status, r.location]).toEqual([308, `/works/${workId}`]),
  "/admin": (r) => expect([r.status, r.location]).toEqual([302, "/admin/dashboard"]),
  "/admin/*": (r) => expect([r.status, r.location]).toEqual([302, "/admin/dashboard"]),
};

interface ActionRoute {
  pattern: string;
  node: RouteNode;
  admin: boolean;
}

function actionRoutes(node: RouteNode, prefix: string, admin: boolean): ActionRoute[] {
  const pattern = node.path ? `${prefix.replace(/\/$/, "")}/${node.path}` : prefix || "/";
  const underAdmin = admin || node.file === "routes/admin/layout.tsx" || node.file === "routes/exports/layout.ts";
  if (node.children.length === 0) return [{ pattern, node, admin: underAdmin }];
  return node.children.flatMap((child) => actionRoutes(child, pattern, underAdmin));
}

let userCookie: string;
let adminCookie: string;
let adminId: string;
let userId: string;
let workId: number;

beforeAll(async () => {
  const user = await createUser();
  userId = user.id;
  userCookie = await sessionCookieFor(user.id);
  adminId = (await createAdmin()).id;
  adminCookie = await adminCookieFor(adminId);
  [workId] = await insertWorks([{ userId: user.id, title: "畸形请求" }]);
});

async function post(route: ActionRoute, contentType: string | null, body: Buffer): Promise<{ result: RouteResult; text: string }> {
  const url = `http://localhost${route.pattern.replace(/:id/g, String(workId)).replace(":kind", "cover").replace("*", "x")}`;
  // The logouts end the session they are given: theirs is a fresh one each time.
  const cookie =
    route.pattern === "/auth/logout" ? await sessionCookieFor(userId)
    : route.pattern === "/admin/logout" ? await adminCookieFor(adminId)
    : route.admin ? adminCookie
    : userCookie;
  const headers = new Headers({ Origin: "http://localhost", Cookie: cookie });
  if (contentType) headers.set("Content-Type", contentType);
  const request = new Request(url, { method: "POST", headers, body: new Uint8Array(body) });
  const mod = await importRoute(route.node);
  const result = await settle(() => runRoute("action", mod, request));
  const text = result.response ? await result.response.text() : JSON.stringify(result.data);
  return { result, text };
}

const ALL = actionRoutes(routeTree, "", false);
const WITH_ACTION = (await Promise.all(ALL.map(async (route) => ((await importRoute(route.node)).action ? [route] : [])))).flat();

describe("a body that is not a well-formed form", () => {
  it("is tried on every route with an action", () => {
    const patterns = WITH_ACTION.map((r) => r.pattern);
    expect(patterns.length).toBeGreaterThan(30);
    expect(patterns).toContain("/settings/nickname");
    expect(patterns).toContain("/admin/users/:id");
  });

  for (const route of WITH_ACTION) {
    it(`${route.pattern}: 4xx with a Chinese message, never 500`, async () => {
      for (const malformed of MALFORMED) {
        const { result, text } = await post(route, malformed.contentType, malformed.body);
        const special = NOT_A_FORM[route.pattern];
        if (special) {
          special(result, text);
          continue;
        }
        expect(result.status, `${malformed.name}: ${text}`).toBeGreaterThanOrEqual(400);
        expect(result.status, `${malformed.name}: ${text}`).toBeLessThan(500);
        expect(text, malformed.name).toMatch(/[\u4e00-\u9fff]/);
      }
    });
  }

  it("says which: the messages are the form reader's", async () => {
    const nickname = ALL.find((r) => r.pattern === "/settings/nickname")!;
    for (const malformed of MALFORMED) {
      const { result, text } = await post(nickname, malformed.contentType, malformed.body);
      expect([result.status, text], malformed.name).toEqual([400, JSON.stringify(malformed.message)]);
    }
  });

  it("changes nothing", async () => {
    const [before] = await db.select({ nickname: profiles.nickname }).from(profiles).where(eq(profiles.id, userId));
    const nickname = ALL.find((r) => r.pattern === "/settings/nickname")!;
    const { result } = await post(nickname, "application/x-www-form-urlencoded", bytes("nickname=%E6%96%B0%00"));
    expect(result.status).toBe(400);
    const [after] = await db.select({ nickname: profiles.nickname }).from(profiles).where(eq(profiles.id, userId));
    expect(after.nickname).toBe(before.nickname);
  });

  it("is told apart from a good form, which is still read (URL-encoded and multipart, Chinese text, tabs and newlines)", async () => {
    const nickname = ALL.find((r) => r.pattern === "/settings/nickname")!;
    const good = await post(nickname, "application/x-www-form-urlencoded", bytes(`nickname=${encodeURIComponent("新 昵称")}`));
    expect([good.result.status, good.result.location]).toEqual([302, "/settings"]);
    const multipart = await post(nickname, "multipart/form-data; boundary=XyZ", bytes(part("nickname", "又一个"), "--XyZ--\r\n"));
    expect(multipart.result.status).toBe(302);
    const [row] = await db.select({ nickname: profiles.nickname }).from(profiles).where(eq(profiles.id, userId));
    expect(row.nickname).toBe("又一个");
  });
});

describe("a query string with a control character or bytes that are not UTF-8", () => {
  it("answers 400 before any loader reads it, also for a visitor", async () => {
    const works = await import("~/routes/public/works");
    for (const query of ["?q=%00", "?q=a%07b", "?q=%FF", "?page=1&q=%C3%28"]) {
      const r = await settle(() => runRoute("loader", works, new Request(`http://localhost/works${query}`)));
      expect([r.status, r.data], query).toEqual([400, query.includes("%00") || query.includes("%07") ? FORM_MESSAGES.queryControlCharacter : FORM_MESSAGES.queryNotUtf8]);
    }
    const ok = await settle(() => runRoute("loader", works, new Request(`http://localhost/works?q=${encodeURIComponent("长篇\t小说")}`)));
    expect(ok.status).toBe(200);
  });
});
