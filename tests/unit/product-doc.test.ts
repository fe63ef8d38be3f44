import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { ADMIN_MESSAGES } from "~/schemas/admin";
import { AI_MESSAGES } from "~/schemas/ai-messages";
import { REFERENCE_SAMPLE_CHARS } from "~/server/ai/render";
import { FIRST_HOLD_TOKENS, OUTPUT_HOLD_TOKENS } from "~/server/ai/generation.server";
import { CONTINUATION_WORDS, EXCERPT_CHARS } from "~/server/studio/context.server";

/**
 * docs/product.md describes the rules in the project's own words: where it quotes what the
 * code says or counts, it must say what the code says (issue 28: D7 still described the
 * charging before decision 125, and connectivity-test messages the code no longer has).
 */
const product = fs.readFileSync(new URL("../../docs/product.md", import.meta.url), "utf8");
const section = (heading: string) => {
  const start = product.indexOf(heading);
  expect(start, heading).toBeGreaterThanOrEqual(0);
  const next = product.indexOf("\n## ", start + heading.length);
  const nextSub = product.indexOf("\n### ", start + heading.length);
  const ends = [next, nextSub].filter((i) => i > 0);
  return product.slice(start, ends.length ? Math.min(...ends) : undefined);
};

describe("docs/product.md matches the code", () => {
  it("the AI providers screen quotes the connectivity tests' messages, and no message the code does not have", () => {
    const text = section("### Back office: AI providers");
    for (const message of [
      ADMIN_MESSAGES.apiConnected,
      ADMIN_MESSAGES.apiConnectionFailed,
      ADMIN_MESSAGES.apiInvalidFormat,
      ADMIN_MESSAGES.apiTestIncomplete,
      ADMIN_MESSAGES.testFailed,
      ADMIN_MESSAGES.chatTestOk,
      ADMIN_MESSAGES.chatTestFailed,
    ]) {
      expect(text, message).toContain(message);
    }
    expect(text).not.toContain("API连接失败，请检查配置");
  });

  it("D7's charging is the code's: reservation and holds by the estimate, settled on the reported usage, waived usage said on the page", () => {
    const d7 = section("## D7. AI generation");
    expect(d7).toContain(`first block of ${FIRST_HOLD_TOKENS} output tokens`);
    expect(d7).toContain(`blocks of ${OUTPUT_HOLD_TOKENS}`);
    expect(d7).toContain("reported usage");
    expect(d7).toContain(AI_MESSAGES.usageNotCovered(1, 1, 1, true).split("1 Tokens")[0]);
    expect(d7).toContain(`${CONTINUATION_WORDS.toLocaleString("en")} characters`);
    expect(d7).toContain(`${REFERENCE_SAMPLE_CHARS.toLocaleString("en")}`);
    expect(d7).not.toContain("The final charge is\n  exactly");
    expect(section("### Continuation context")).toContain(`last ${EXCERPT_CHARS}`);
  });
});
