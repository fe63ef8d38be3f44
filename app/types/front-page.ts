/**
 * A site announcement (公告) as the home page and the inbox show it
 * (catalog/front-page.server.ts makes it, components/announcements.tsx shows it).
 */
export interface AnnouncementView {
  id: number;
  title: string;
  body: string;
  startsAt: Date | string;
  /** In the inbox: whether this reader has not marked it read. */
  unread?: boolean;
}

/** 备案信息 for the footer: the ICP number and the 公安联网备案号 with its link; "" when not set. */
export interface FilingInfo {
  icp: string;
  police: string;
  policeHref: string;
}
