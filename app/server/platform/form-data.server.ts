import {
  getMultipartBoundary,
  isMultipartRequest,
  MaxFileSizeExceededError,
  MaxTotalSizeExceededError,
  parseMultipart,
  parseMultipartRequest,
} from "@remix-run/multipart-parser";
import type { SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import type { z } from "zod";
import { data } from "react-router";
import { asRouteError, DomainError, formErrorsOf, replyOnDomainError } from "./errors.server";

/**
 * Every action reads its body here (docs/architecture.md#forms-and-errors): a body that
 * is not a form, a multipart body without its boundary or its end, text that is not
 * UTF-8, or a control character in a field answers 400 with one of these messages before
 * the action changes anything.
 * @internal
 */
export const FORM_MESSAGES = {
  notAForm: "提交的内容不是表单，请通过页面上的表单提交",
  malformed: "表单数据不完整或格式错误，请重新提交",
  notUtf8: "提交的内容不是有效的 UTF-8 文本",
  controlCharacter: "提交的内容包含不允许的控制字符",
  tooLarge: "提交的内容过大",
  queryNotUtf8: "网址中的参数不是有效的 UTF-8 文本",
  queryControlCharacter: "网址中的参数包含不允许的控制字符",
} as const;

/** The body limit of a form without files: a chapter of 200,000 characters URL-encoded, with room. */
const FORM_MAX_BYTES = 4_000_000;

/** C0 controls but tab, LF and CR; DEL; C1 controls. */
const CONTROL_CHARACTER = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/;

export function hasControlCharacter(text: string): boolean {
  return CONTROL_CHARACTER.test(text);
}

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** A field's bytes as text: strict UTF-8, no control characters. */
function fieldText(bytes: Uint8Array, messages: { notUtf8: string; control: string } = { notUtf8: FORM_MESSAGES.notUtf8, control: FORM_MESSAGES.controlCharacter }): string {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new DomainError(messages.notUtf8, 400);
  }
  if (hasControlCharacter(text)) throw new DomainError(messages.control, 400);
  return text;
}

/** The value of a hex digit's character code, or -1. */
function hexValue(code: number): number {
  if (code >= 0x30 && code <= 0x39) return code - 0x30;
  const lower = code | 0x20;
  return lower >= 0x61 && lower <= 0x66 ? lower - 0x57 : -1;
}

/**
 * `a%20b+c` as bytes: percent escapes decoded, `+` a space (the URL standard's form
 * decoding). Character by character, without slices or regular expressions: an autosaved
 * chapter arrives as up to a few MB of escapes.
 */
function percentDecode(raw: string): Uint8Array {
  const bytes = Buffer.allocUnsafe(raw.length);
  let length = 0;
  for (let i = 0; i < raw.length; i++) {
    const code = raw.charCodeAt(i);
    if (code === 0x25 && i + 2 < raw.length) {
      const high = hexValue(raw.charCodeAt(i + 1));
      const low = hexValue(raw.charCodeAt(i + 2));
      if (high !== -1 && low !== -1) {
        bytes[length++] = high * 16 + low;
        i += 2;
        continue;
      }
    }
    bytes[length++] = code === 0x2b ? 0x20 : code;
  }
  return bytes.subarray(0, length);
}

/** application/x-www-form-urlencoded, decoded strictly (the platform's parser replaces bad bytes with U+FFFD). */
function parseUrlEncoded(body: Uint8Array): FormData {
  const form = new FormData();
  // latin1 keeps each byte as one character, so the escapes and separators are found
  // without decoding anything yet.
  for (const pair of Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString("latin1").split("&")) {
    if (!pair) continue;
    const at = pair.indexOf("=");
    const name = at === -1 ? pair : pair.slice(0, at);
    const value = at === -1 ? "" : pair.slice(at + 1);
    form.append(fieldText(percentDecode(name)), fieldText(percentDecode(value)));
  }
  return form;
}

/**
 * A query string as the loaders will read it (percent escapes and `+` decoded) must be
 * UTF-8 without control characters: `?q=%00` or `?q=%FF` answers 400 like a form field
 * would, before any loader runs. URLSearchParams would turn bad bytes into U+FFFD.
 */
export function checkQueryString(url: URL): void {
  if (url.search.length <= 1) return;
  fieldText(percentDecode(url.search.slice(1)), { notUtf8: FORM_MESSAGES.queryNotUtf8, control: FORM_MESSAGES.queryControlCharacter });
}

function mediaTypeOf(request: Request): string {
  return (request.headers.get("Content-Type") ?? "").split(";")[0].trim().toLowerCase();
}

function multipartBoundaryOf(request: Request): string {
  const boundary = getMultipartBoundary(request.headers.get("Content-Type") ?? "");
  if (!boundary) throw new DomainError(FORM_MESSAGES.malformed, 400);
  return boundary;
}

/**
 * Reads a form body (URL-encoded or multipart), refusing bodies over `maxBytes` with 413
 * before they are buffered whole: by Content-Length when given, else while streaming.
 * Throws a DomainError (400) for anything but a well-formed form of UTF-8 text without
 * control characters; see FORM_MESSAGES. Routes use readForm, which answers it as a 4xx.
 */
export async function readFormData(request: Request, maxBytes = FORM_MAX_BYTES, tooLarge: string = FORM_MESSAGES.tooLarge): Promise<FormData> {
  const declared = Number(request.headers.get("Content-Length") ?? "NaN");
  if (Number.isFinite(declared) && declared > maxBytes) throw new DomainError(tooLarge, 413);
  if (!request.body) return new FormData();
  const reader = request.body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw new DomainError(tooLarge, 413);
    }
    parts.push(value);
  }
  const body = Buffer.concat(parts);
  // No body at all is an empty form, whatever the content type (or none): a gateway's
  // POST may carry its fields in the query string alone.
  if (body.length === 0) return new FormData();
  const mediaType = mediaTypeOf(request);
  if (mediaType === "application/x-www-form-urlencoded") return withoutConformControls(parseUrlEncoded(body));
  if (mediaType !== "multipart/form-data") throw new DomainError(FORM_MESSAGES.notAForm, 400);
  const boundary = multipartBoundaryOf(request);
  const form = new FormData();
  try {
    for (const part of parseMultipart(body, { boundary, maxFileSize: maxBytes, maxTotalSize: maxBytes })) {
      if (!part.name) continue;
      const name = fieldText(new TextEncoder().encode(part.name));
      if (part.isFile) form.append(name, new File([part.bytes as Uint8Array<ArrayBuffer>], part.filename ?? "", { type: part.mediaType ?? "" }));
      else form.append(name, fieldText(part.bytes));
    }
  } catch (error) {
    if (error instanceof DomainError) throw error;
    throw new DomainError(FORM_MESSAGES.malformed, 400);
  }
  return withoutConformControls(form);
}

/**
 * Conform reads `__intent__` and `__state__` as its own JSON (a validate, update or list
 * intent) and throws on anything else, which would be a 500 in every action. This app's
 * forms never send them: each validates in the browser (onValidate) and posts a plain
 * submit (docs/decisions/193). A form that carries either is refused as malformed.
 */
function withoutConformControls(form: FormData): FormData {
  if (form.has("__intent__") || form.has("__state__")) throw new DomainError(FORM_MESSAGES.malformed, 400);
  return form;
}

/**
 * readFormData for a route's action: a body that is not a well-formed form is answered
 * with its 4xx and Chinese message (the shared error boundary renders it), and the
 * action goes no further.
 */
export async function readForm(request: Request, maxBytes = FORM_MAX_BYTES, tooLarge: string = FORM_MESSAGES.tooLarge): Promise<FormData> {
  try {
    return await readFormData(request, maxBytes, tooLarge);
  } catch (error) {
    asRouteError(error);
  }
}

/**
 * The one way an action reads a form's fields and ends (docs/decisions/173): the form (from
 * readForm) is parsed by its zod schema in app/schemas with Conform's parseWithZod (a page
 * with several forms: a discriminated union on `intent`). An invalid form answers 400 with
 * the submission's reply; else `work` runs with the parsed value, and a DomainError it
 * throws answers its status with the reply carrying its message, by its field or for the
 * form (formErrorsOf). `answer` puts a reply into the action's data (`{ intent, result }`);
 * `hideFields` keeps passwords out of the reply.
 */
export async function replyToForm<Schema extends z.ZodType, Result, Answer = SubmissionResult<string[]>>(
  form: FormData,
  schema: Schema,
  work: (value: z.output<Schema>) => Promise<Result>,
  options: { hideFields?: string[]; answer?: (reply: SubmissionResult<string[]>) => Answer } = {},
) {
  const answer = options.answer ?? ((reply: SubmissionResult<string[]>) => reply as Answer);
  const hide = options.hideFields ? { hideFields: options.hideFields } : {};
  const submission = parseWithZod(form, { schema });
  if (submission.status !== "success") return data(answer(submission.reply(hide)), { status: 400 });
  const value = submission.value;
  return replyOnDomainError(
    () => work(value),
    (error) => answer(submission.reply({ ...hide, ...formErrorsOf(error) })),
  );
}

/** A non-empty uploaded file from the form, or null. */
export function fileField(form: FormData, name: string): File | null {
  const value = form.get(name);
  return value instanceof File && value.size > 0 ? value : null;
}

/** A file from a multipart form, kept as the chunks it arrived in (never joined). */
export interface Upload {
  name: string;
  type: string;
  size: number;
  chunks: Uint8Array[];
}

/** The upload's bytes in one buffer (joined only when it came in several chunks). */
export function uploadBytes(upload: Upload): Uint8Array {
  return upload.chunks.length === 1 ? upload.chunks[0] : Buffer.concat(upload.chunks);
}

/**
 * Like readFormData, for forms that carry large files: the body is parsed as it streams
 * in (@remix-run/multipart-parser), each file is kept as the chunks that arrived, and no
 * copy of the body, of a File or of an ArrayBuffer is made (request.formData() holds a
 * 10 MB upload four or five times over). Returns the text fields as FormData and each
 * file field's first chosen file (possibly empty). Bodies over `maxBytes` get 413, malformed ones 400.
 */
export async function readUploadForm(
  request: Request,
  maxBytes: number,
  tooLarge: string,
): Promise<{ form: FormData; files: Map<string, Upload> }> {
  const files = new Map<string, Upload>();
  // A URL-encoded form carries no files.
  if (!isMultipartRequest(request)) return { form: await readFormData(request, maxBytes, tooLarge), files };
  const declared = Number(request.headers.get("Content-Length") ?? "NaN");
  if (Number.isFinite(declared) && declared > maxBytes) throw new DomainError(tooLarge, 413);
  multipartBoundaryOf(request);
  const form = new FormData();
  try {
    for await (const part of parseMultipartRequest(request, { maxFileSize: maxBytes, maxTotalSize: maxBytes })) {
      if (!part.name) continue;
      const name = fieldText(new TextEncoder().encode(part.name));
      if (!part.isFile) {
        form.append(name, fieldText(part.bytes));
      } else if ((part.size > 0 || part.filename) && !files.has(name)) {
        // A chosen file that is empty is kept (to be refused as empty); a part with no
        // file name is a file input left blank.
        files.set(name, { name: part.filename ?? "", type: part.mediaType ?? "", size: part.size, chunks: part.content });
      }
    }
  } catch (error) {
    if (error instanceof MaxFileSizeExceededError || error instanceof MaxTotalSizeExceededError) {
      await request.body?.cancel().catch(() => {});
      throw new DomainError(tooLarge, 413);
    }
    if (error instanceof DomainError) throw error;
    throw new DomainError(FORM_MESSAGES.malformed, 400);
  }
  return { form: withoutConformControls(form), files };
}
