import { afterOwnWrite } from "~/db/client.server";
import { onPublicContentChange } from "./events.server";

/**
 * A few seconds' per-process copy of answers that are the same for everyone who asks
 * the same question (docs/decisions/060-shared-listing-cache.md): the works listing and
 * search for one query, page and pair of audience preferences. Nothing personal goes in
 * it; a key must name everything the answer depends on.
 *
 * Like the visitors' page cache (docs/decisions/013) it is dropped on every change of
 * works or site settings (database triggers raise the live events `work` and `site`,
 * from any process), nothing is kept until this process listens for them, a load that
 * began before a change is never kept after it, and entries expire after TTL_MS for
 * what no trigger announces (an author's new nickname on a card). PAGE_CACHE=0 turns
 * it off, as it does the page cache. A request shortly after its person's own write
 * neither reads nor fills it (read replicas, docs/decisions/265).
 * @internal
 */
export const PUBLIC_CACHE_TTL_MS = 5_000;
const MAX_ENTRIES = 500;

interface Entry {
  storedAt: number;
  value: Promise<unknown>;
}

const state: {
  generation: number;
  entries: Map<string, Entry>;
  listening?: Promise<boolean>;
} = { generation: 0, entries: new Map() };

/** Forgets every cached answer of this process. */
export function clearPublicCache(): void {
  state.generation += 1;
  state.entries.clear();
}

function listening(): Promise<boolean> {
  state.listening ??= onPublicContentChange(clearPublicCache).then(
    () => true,
    (error) => {
      console.error("public cache disabled: cannot listen for changes", error);
      return false;
    },
  );
  return state.listening;
}

/**
 * The answer for `key` from this process's copy while fresh, else `load()` (concurrent
 * askers of a missing key share one load). The value is shared: callers must not
 * change it.
 */
export async function cachedPublic<T>(key: string, load: () => Promise<T>): Promise<T> {
  // Someone who has just written reads fresh: a shared answer may predate their write,
  // having been read from a replica that had not replayed it (docs/decisions/265).
  if (process.env.PAGE_CACHE === "0" || afterOwnWrite() || !(await listening())) return load();
  const now = Date.now();
  const found = state.entries.get(key);
  if (found && now - found.storedAt <= PUBLIC_CACHE_TTL_MS) return found.value as Promise<T>;
  if (found) state.entries.delete(key);

  const generation = state.generation;
  const value = load();
  if (state.entries.size >= MAX_ENTRIES) state.entries.delete(state.entries.keys().next().value!);
  const entry: Entry = { storedAt: now, value };
  state.entries.set(key, entry);
  const forget = () => {
    if (state.entries.get(key) === entry) state.entries.delete(key);
  };
  // A change announced while loading may not be in the answer: do not keep it.
  value.then(() => {
    if (state.generation !== generation) forget();
  }, forget);
  return value;
}
