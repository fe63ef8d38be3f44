import {
  isMultipartRequest,
  MaxFileSizeExceededError,
  MaxTotalSizeExceededError,
  parseMultipartRequest,
} from "@remix-run/multipart-parser";
import { DomainError } from "./errors.server";

/**
 * Reads a (possibly multipart) form body, refusing bodies over `maxBytes` with 413
 * before they are buffered whole: by Content-Length when given, else while streaming.
 */
export async function readFormData(request: Request, maxBytes: number, tooLarge: string): Promise<FormData> {
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
  try {
    return await new Response(body, { headers: { "Content-Type": request.headers.get("Content-Type") ?? "" } }).formData();
  } catch {
    throw new DomainError("表单数据无效", 400);
  }
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
  const form = new FormData();
  try {
    for await (const part of parseMultipartRequest(request, { maxFileSize: maxBytes, maxTotalSize: maxBytes })) {
      const name = part.name;
      if (!name) continue;
      if (!part.isFile) {
        form.append(name, part.text);
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
    throw new DomainError("表单数据无效", 400);
  }
  return { form, files };
}
