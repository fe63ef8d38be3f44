import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { outboxDir } from "./mail.server";

/**
 * Outgoing text messages (docs/architecture.md#sms, decision 235), like mail: to the
 * provider at `SMS_URL` when it is set, else written to `DATA_DIR/outbox/sms/*.json`, so a
 * server without a provider still works and its codes can be read.
 *
 * The provider's one HTTP shape (docs/protocols.md#sms): `POST SMS_URL` with
 * `Content-Type: application/json` and the body `{"phone":"13800138000","text":"…"}`,
 * plus `Authorization: Bearer <SMS_TOKEN>` when SMS_TOKEN is set. Any 2xx is delivered;
 * anything else, or no answer within 10 seconds, is a failure. A provider with another API
 * sits behind a small adapter speaking this shape.
 */

export interface SmsMessage {
  /** A normalised mainland number (11 digits). */
  phone: string;
  text: string;
}

export type SmsDelivery = { via: "provider" } | { via: "outbox"; file: string };

const SMS_TIMEOUT_MS = 10_000;

/** @internal */
export function smsOutboxDir(): string {
  return path.join(outboxDir(), "sms");
}

/** 138****8000: what logs show of a number. */
function maskedPhone(phone: string): string {
  return phone.length === 11 ? `${phone.slice(0, 3)}****${phone.slice(7)}` : "***";
}

/** Sends one message; throws when the provider refuses it or the outbox cannot be written. */
export async function sendSms(message: SmsMessage): Promise<SmsDelivery> {
  const body = JSON.stringify({ phone: message.phone, text: message.text });
  const url = process.env.SMS_URL?.trim();
  if (url) {
    const token = process.env.SMS_TOKEN?.trim();
    const response = await fetch(url, {
      method: "POST",
      headers: { "Content-Type": "application/json", ...(token ? { Authorization: `Bearer ${token}` } : {}) },
      body,
      redirect: "error",
      signal: AbortSignal.timeout(SMS_TIMEOUT_MS),
    });
    // Read the answer whole, so the connection is free again.
    const answer = await response.text();
    if (!response.ok) throw new Error(`SMS provider answered ${response.status}: ${answer.slice(0, 200)}`);
    return { via: "provider" };
  }
  const dir = smsOutboxDir();
  await fs.mkdir(dir, { recursive: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  const file = path.join(dir, `${stamp}-${randomBytes(4).toString("hex")}.json`);
  // Readable by the server's user only: the message carries a code.
  await fs.writeFile(file, `${body}\n`, { mode: 0o600, flag: "wx" });
  console.info(`SMS to ${maskedPhone(message.phone)} written to ${file} (SMS_URL is not set)`);
  return { via: "outbox", file };
}
