/** The address of a chapter's 本章说 (paragraph null) or of one paragraph's 段评. */
export function threadHref(workId: number, order: number, paragraph: number | null, extra: Record<string, string> = {}): string {
  const params = new URLSearchParams({ chapter: String(order) });
  if (paragraph !== null) params.set("p", String(paragraph));
  for (const [k, v] of Object.entries(extra)) params.set(k, v);
  return `/works/${workId}/comments?${params.toString()}`;
}
