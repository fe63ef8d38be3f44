import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { COVER_FONT, defaultCoverWebp } from "~/server/catalog/default-cover.server";
import { defaultCoverHref } from "~/utils/default-cover";
import { createUser, sessionCookieFor } from "../fixtures/accounts";
import { insertWorks } from "../fixtures/works";
import { callThroughRoutes } from "./route-chain";

async function fetchCover(path: string, cookie = "") {
  const { loader } = await import("~/routes/api/default-cover");
  return (await callThroughRoutes(loader, { request: new Request(`http://localhost${path}`, { headers: { Cookie: cookie } }) })) as Response;
}

/** The average colour of an image, as [r, g, b]. */
async function meanColour(bytes: Buffer): Promise<number[]> {
  const { channels } = await sharp(bytes).stats();
  return channels.slice(0, 3).map((c) => Math.round(c.mean));
}

describe("generated default covers", () => {
  it("draws a distinct cover per work, at twice the display size, cacheable for good", async () => {
    const author = await createUser();
    const [a, b] = await insertWorks([
      { userId: author.id, title: "山河故人" },
      { userId: author.id, title: "长夜未央" },
    ]);
    const responses = await Promise.all([a, b].map((id) => fetchCover(`/covers/${id}.webp?v=x`)));
    for (const response of responses) {
      expect(response.status).toBe(200);
      expect(response.headers.get("Content-Type")).toBe("image/webp");
      expect(response.headers.get("Cache-Control")).toContain("immutable");
    }
    const [one, two] = await Promise.all(responses.map(async (r) => Buffer.from(await r.arrayBuffer())));
    expect(await sharp(one).metadata()).toMatchObject({ width: 400, height: 550, format: "webp" });
    expect(await meanColour(one)).not.toEqual(await meanColour(two));
    // The same title and author give the same image, drawn once.
    expect(await defaultCoverWebp("山河故人", "作者")).toBe(await defaultCoverWebp("山河故人", "作者"));
    // The address changes with the title, so a renamed work gets a new picture.
    expect(defaultCoverHref({ id: a, title: "山河故人", authorNickname: "x" })).not.toBe(
      defaultCoverHref({ id: a, title: "山河故人2", authorNickname: "x" }),
    );
  });

  it("sets real Chinese glyphs, not missing-glyph boxes", async () => {
    const draw = (text: string) =>
      sharp(
        Buffer.from(
          `<svg xmlns="http://www.w3.org/2000/svg" width="120" height="120"><rect width="120" height="120" fill="#fff"/><text x="10" y="95" font-size="100" font-family="${COVER_FONT}">${text}</text></svg>`,
        ),
      )
        .greyscale()
        .raw()
        .toBuffer();
    const [shan, he, kou] = await Promise.all(["山", "河", "口"].map(draw));
    // Missing glyphs all draw the same box; real ones differ from each other.
    expect(shan.equals(he)).toBe(false);
    expect(shan.equals(kou)).toBe(false);
    expect(he.equals(kou)).toBe(false);
    expect(shan.some((v) => v < 128)).toBe(true);
  });

  it("answers 404 for a bad address, an unknown work, and someone else's private work", async () => {
    const owner = await createUser();
    const [hidden] = await insertWorks([{ userId: owner.id, title: "私密", visibility: "private" }]);
    expect((await fetchCover("/covers/abc.webp")).status).toBe(404);
    expect((await fetchCover("/covers/999999999.webp")).status).toBe(404);
    expect((await fetchCover(`/covers/${hidden}.png`)).status).toBe(404);
    expect((await fetchCover(`/covers/${hidden}.webp`)).status).toBe(404);
    const stranger = await createUser();
    expect((await fetchCover(`/covers/${hidden}.webp`, await sessionCookieFor(stranger.id))).status).toBe(404);
    const mine = await fetchCover(`/covers/${hidden}.webp`, await sessionCookieFor(owner.id));
    expect(mine.status).toBe(200);
    expect(mine.headers.get("Cache-Control")).toMatch(/^private/);
  });
});
