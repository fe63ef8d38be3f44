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
