/**
 * Saves where a signed-in reader is in a chapter (POST /works/:id/progress): the reader's
 * scrolling and 听书 both use it. Resolves false when the save did not reach the server.
 */
export function saveReadingPosition(workId: number, chapter: { id: number; order: number }, paragraph: number): Promise<boolean> {
  const body = new URLSearchParams({ chapterId: String(chapter.id), chapter: String(chapter.order), paragraph: String(paragraph) });
  return fetch(`/works/${workId}/progress`, { method: "POST", body, keepalive: true }).then(
    () => true,
    () => false,
  );
}
