import fs from "node:fs";
import path from "node:path";
import { simpleParser } from "mailparser";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { outboxDir, sendMail } from "~/server/platform/mail.server";
import { startFakeSmtp, type FakeSmtp } from "../fakes/smtp";

const message = {
  to: "reader@example.com",
  subject: "砚台密码重置",
  text: "请点击链接重置密码：https://example.com/auth/reset?token=abc",
};

afterEach(() => {
  delete process.env.SMTP_URL;
  delete process.env.MAIL_FROM;
});

describe("sendMail over SMTP", () => {
  let smtp: FakeSmtp;
  beforeAll(async () => {
    smtp = await startFakeSmtp();
  });
  afterAll(async () => {
    await smtp.close();
  });

  it("delivers the message to the SMTP server of SMTP_URL, from MAIL_FROM", async () => {
    process.env.SMTP_URL = smtp.url;
    process.env.MAIL_FROM = "砚台 <noreply@inkstone.example>";
    const delivery = await sendMail(message);
    expect(delivery.via).toBe("smtp");
    const mail = await smtp.nextMessageTo("reader@example.com");
    expect(mail.from).toBe("noreply@inkstone.example");
    expect(mail.subject).toBe("砚台密码重置");
    expect(mail.text.trim()).toBe(message.text);
    expect(fs.existsSync(outboxDir())).toBe(false);
  });

  it("throws when the SMTP server cannot be reached, writing nothing to the outbox", async () => {
    const closed = await startFakeSmtp();
    await closed.close();
    process.env.SMTP_URL = closed.url;
    await expect(sendMail(message)).rejects.toThrow();
    expect(fs.existsSync(outboxDir())).toBe(false);
  });
});

describe("sendMail without SMTP_URL", () => {
  it("writes the raw message to DATA_DIR/outbox and logs where", async () => {
    const info = vi.spyOn(console, "info").mockImplementation(() => {});
    try {
      const delivery = await sendMail(message);
      if (delivery.via !== "outbox") throw new Error(`expected the outbox, got ${delivery.via}`);
      expect(path.dirname(delivery.file)).toBe(path.join(process.env.DATA_DIR!, "outbox"));
      expect(delivery.file).toMatch(/\.eml$/);
      expect(info.mock.calls.flat().join(" ")).toContain(delivery.file);
      const parsed = await simpleParser(fs.readFileSync(delivery.file));
      expect(parsed.subject).toBe("砚台密码重置");
      expect(parsed.from?.value[0]).toMatchObject({ name: "砚台", address: "no-reply@localhost" });
      expect(parsed.text?.trim()).toBe(message.text);
      expect(parsed.to && !Array.isArray(parsed.to) ? parsed.to.text : "").toBe("reader@example.com");
      expect(fs.statSync(delivery.file).mode & 0o777).toBe(0o600);
    } finally {
      info.mockRestore();
    }
  });
});
