/**
 * Saves where a signed-in reader is in a chapter (POST /works/:id/progress): the reader's
 * scrolling and 听书 both use it. Resolves false when the save did not reach the server.
 *
 * Saves go out one at a time: while one is on its way, only the newest wanted place waits
 * and is sent when it is answered. Two saves sent together could be written in either order
 * by the server (听书 moves a paragraph every few seconds; a busy server answered the older
 * one last and 继续阅读 went back a paragraph), and a superseded place need not be sent.
 */
type Place = { workId: number; chapterId: number; order: number; paragraph: number; savedAt?: number };

let inFlight: Promise<unknown> | null = null;
let waiting: { place: Place; settle: ((ok: boolean) => void)[] } | null = null;

/**
 * Offline (离线阅读, decision 244) a save cannot be sent: the newest place in each work waits
 * in localStorage with the time it was reached and the key of the person who reached it,
 * and is sent when the device is online again (the server keeps whichever is newer).
 */
const PENDING = "inkstone-pending-progress";
type Pending = { key: string; places: Record<string, Place> };
/** Whose positions these are: the signed-in reader's offline key, from the shell (service-worker.ts). */
let owner: string | null = null;

function readPending(): Pending | null {
  try {
    const value = JSON.parse(localStorage.getItem(PENDING) ?? "null") as Pending | null;
    return value && typeof value.key === "string" && value.places && typeof value.places === "object" ? value : null;
  } catch {
    return null;
  }
}

function writePending(pending: Pending | null) {
  try {
    if (pending && Object.keys(pending.places).length > 0) localStorage.setItem(PENDING, JSON.stringify(pending));
    else localStorage.removeItem(PENDING);
  } catch {
    // Storage full or refused: the position is lost, as before offline reading.
  }
}

function keepForLater(place: Place) {
  if (!owner) return;
  const pending = readPending();
  const places = pending?.key === owner ? pending.places : {};
  writePending({ key: owner, places: { ...places, [place.workId]: { ...place, savedAt: place.savedAt ?? Date.now() } } });
}

function forget(place: Place) {
  const pending = readPending();
  const kept = pending?.places[place.workId];
  if (!pending || !kept || (kept.savedAt ?? 0) > (place.savedAt ?? Date.now())) return;
  delete pending.places[place.workId];
  writePending(pending);
}

function send(place: Place): Promise<boolean> {
  const body = new URLSearchParams({ chapterId: String(place.chapterId), chapter: String(place.order), paragraph: String(place.paragraph) });
  if (place.savedAt) body.set("savedAt", String(place.savedAt));
  return fetch(`/works/${place.workId}/progress`, { method: "POST", body, keepalive: true }).then(
    () => {
      forget(place);
      return true;
    },
    () => {
      keepForLater(place);
      return false;
    },
  );
}

/**
 * The page's reader (their offline key, or null for a visitor): positions kept offline by
 * someone else are dropped, this reader's are sent now if the device is online.
 */
export function sendPendingPositions(key: string | null) {
  owner = key;
  const pending = readPending();
  if (!pending) return;
  if (pending.key !== key) {
    writePending(null);
    return;
  }
  if (!navigator.onLine) return;
  for (const place of Object.values(pending.places)) queue(place);
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
  return queue({ workId, chapterId: chapter.id, order: chapter.order, paragraph });
}

function queue(place: Place): Promise<boolean> {
  return new Promise<boolean>((settle) => {
    // A newer place replaces the one still waiting; whoever asked for that one hears how this went.
    waiting = { place, settle: [...(waiting?.settle ?? []), settle] };
    if (!inFlight) sendNext();
  });
}
