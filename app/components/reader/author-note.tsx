/**
 * 作者的话 under a chapter's text (docs/decisions/202): a box of its own, so it never reads
 * as the story. The paragraphs come masked from the server.
 */
export function AuthorNote({ paragraphs }: { paragraphs: string[] | null | undefined }) {
  if (!paragraphs || paragraphs.length === 0) return null;
  return (
    <aside className="author-note" aria-labelledby="author-note-title" data-testid="author-note">
      <h2 id="author-note-title">作者的话</h2>
      {paragraphs.map((text, i) => (
        <p key={i}>{text}</p>
      ))}
    </aside>
  );
}
