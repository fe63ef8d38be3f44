import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import nodemailer, { type Transporter } from "nodemailer";
import { dataDir } from "~/env.server";

/**
 * Outgoing mail (docs/architecture.md#mail, docs/decisions/048): over SMTP to `SMTP_URL`
 * when it is set, else written as a raw message to `DATA_DIR/outbox/*.eml`, so a server
 * without a mail relay still works and its mails can be read.
 */

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
}

/** Where the message went: the SMTP server's reply, or the outbox file written. */
export type MailDelivery = { via: "smtp"; messageId: string } | { via: "outbox"; messageId: string; file: string };

const DEFAULT_MAIL_FROM = "砚台 <no-reply@localhost>";

function mailFrom(): string {
  return process.env.MAIL_FROM?.trim() || DEFAULT_MAIL_FROM;
}

/** DATA_DIR/outbox: mails here, text messages in its sms/ (sms.server.ts). */
export function outboxDir(): string {
  return path.join(dataDir(), "outbox");
}

// One SMTP transport per process (it keeps no connection open between mails), built
// again if SMTP_URL changes (tests point it at their own server).
let smtp: { url: string; transport: Transporter } | undefined;

function smtpTransport(url: string): Transporter {
  if (smtp?.url !== url) {
    smtp = {
      url,
      // Settings in the URL (?connectionTimeout=…) win over these.
      transport: nodemailer.createTransport({ url, connectionTimeout: 15_000, greetingTimeout: 15_000, socketTimeout: 30_000 }),
    };
  }
  return smtp.transport;
}

// Builds the raw message without sending it: the outbox's file is exactly what SMTP would carry.
const composer = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: "crlf" });

/** Sends one message; throws when the SMTP server refuses it or the outbox cannot be written. */
export async function sendMail(message: MailMessage): Promise<MailDelivery> {
  const mail = { from: mailFrom(), ...message };
  const url = process.env.SMTP_URL?.trim();
  if (url) {
    const info = await smtpTransport(url).sendMail(mail);
    return { via: "smtp", messageId: info.messageId };
  }
  const info = await composer.sendMail(mail);
  const dir = outboxDir();
  await fs.mkdir(dir, { recursive: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  const file = path.join(dir, `${stamp}-${randomBytes(4).toString("hex")}.eml`);
  // Readable by the server's user only: a mail may carry a password reset link.
  await fs.writeFile(file, info.message as Buffer, { mode: 0o600, flag: "wx" });
  console.info(`mail "${message.subject}" to ${message.to} written to ${file} (SMTP_URL is not set)`);
  return { via: "outbox", messageId: info.messageId, file };
}
