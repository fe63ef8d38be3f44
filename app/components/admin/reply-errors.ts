/** Every message of a Conform reply (its `error`), fields and form alike, for one red box. */
export function replyMessages(reply: unknown): string[] {
  const error = reply && typeof reply === "object" && "error" in reply ? (reply as { error?: Record<string, string[] | null> | null }).error : null;
  return error ? (Object.values(error).flat().filter(Boolean) as string[]) : [];
}
