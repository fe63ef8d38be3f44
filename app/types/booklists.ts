/** A 书单 as a card on /booklists, 我的书单 and an author's page (decision 232). */
export interface BooklistCard {
  id: number;
  title: string;
  description: string;
  owner: { id: string; nickname: string };
  /** The works of the list this viewer may see. */
  works: number;
  followers: number;
  updatedAt: string;
}

/** An entry on the owner's edit page: every work, with whether readers can see it. */
export interface BooklistEditEntry {
  workId: number;
  title: string;
  authorNickname: string;
  note: string;
  /** Public or paid: readers may see it (subject to their R-18 and AI settings). */
  listed: boolean;
}
