/**
 * Saves where a signed-in reader is in a chapter (POST /works/:id/progress): the reader's
 * scrolling and 听书 both use it. Resolves false when the save did not reach the server.
 *
 * Saves go out one at a time: while one is on its way, only the newest wanted place waits
 * and is sent when it is answered. Two saves sent together could be written in either order
 * by the server (听书 moves a paragraph every few seconds; a busy server answered the older
 * one last and 继续阅读 went back a paragraph), and a superseded place need not be sent.
 */
type Place = { workId: number; chapterId: number; order: number; paragraph: number };

let inFlight: Promise<unknown> | null = null;
let waiting: { place: Place; settle: ((ok: boolean) => void)[] } | null = null;

function send(place: Place): Promise<boolean> {
  const body = new URLSearchParams({ chapterId: String(place.chapterId), chapter: String(place.order), paragraph: String(place.paragraph) });
  return fetch(`/works/${place.workId}/progress`, { method: "POST", body, keepalive: true }).then(
    () => true,
    () => false,
  );
}

function sendNext() {
  const next = waiting;
  waiting = null;
  if (!next) {
    inFlight = null;
    return;
  }
  const sent = send(next.place);
  inFlight = sent;
  void sent.then((ok) => {
    for (const settle of next.settle) settle(ok);
    sendNext();
  });
}

export function saveReadingPosition(workId: number, chapter: { id: number; order: number }, paragraph: number): Promise<boolean> {
  const place = { workId, chapterId: chapter.id, order: chapter.order, paragraph };
  return new Promise<boolean>((settle) => {
    // A newer place replaces the one still waiting; whoever asked for that one hears how this went.
    waiting = { place, settle: [...(waiting?.settle ?? []), settle] };
    if (!inFlight) sendNext();
  });
}
