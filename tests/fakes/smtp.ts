import type { AddressInfo } from "node:net";
import { simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";

/**
 * A real SMTP server for tests (smtp-server, the protocol side of nodemailer's
 * authors): it accepts every message without authentication or TLS and keeps what it
 * received, parsed (mailparser), so a test reads the mail as a mail client would.
 */
export interface ReceivedMail {
  /** Envelope recipients (RCPT TO). */
  to: string[];
  from: string;
  subject: string;
  text: string;
  html: string | null;
  raw: Buffer;
}

export interface FakeSmtp {
  /** smtp://127.0.0.1:<port>, for SMTP_URL. */
  url: string;
  messages: ReceivedMail[];
  /** Resolves with the next message to `to` (or one already received and not yet taken). */
  nextMessageTo(to: string, timeoutMs?: number): Promise<ReceivedMail>;
  close(): Promise<void>;
}

export async function startFakeSmtp(): Promise<FakeSmtp> {
  const messages: ReceivedMail[] = [];
  const taken = new Set<ReceivedMail>();
  const waiters: { to: string; resolve: (mail: ReceivedMail) => void }[] = [];

  function deliver(mail: ReceivedMail) {
    messages.push(mail);
    for (const waiter of [...waiters]) {
      if (!taken.has(mail) && mail.to.includes(waiter.to)) {
        taken.add(mail);
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(mail);
      }
    }
  }

  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        const raw = Buffer.concat(chunks);
        simpleParser(raw)
          .then((parsed) => {
            deliver({
              to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
              from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
              subject: parsed.subject ?? "",
              text: parsed.text ?? "",
              html: typeof parsed.html === "string" ? parsed.html : null,
              raw,
            });
            callback();
          })
          .catch((error: Error) => callback(error));
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.server.address() as AddressInfo;

  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    nextMessageTo(to, timeoutMs = 10_000) {
      const address = to.toLowerCase();
      const waiting = messages.find((m) => !taken.has(m) && m.to.includes(address));
      if (waiting) {
        taken.add(waiting);
        return Promise.resolve(waiting);
      }
      return new Promise((resolve, reject) => {
        const waiter = {
          to: address,
          resolve: (mail: ReceivedMail) => {
            clearTimeout(timer);
            resolve(mail);
          },
        };
        const timer = setTimeout(() => {
          waiters.splice(waiters.indexOf(waiter), 1);
          reject(new Error(`no mail to ${to} within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.push(waiter);
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
