/** 粉丝等级 and the 粉丝榜 as pages receive them (community/fans.server.ts; decision 207). */
export interface FanLevel {
  name: string;
  /** The 粉丝值 the level starts at. */
  threshold: number;
}

export interface FanRankingRow {
  place: number;
  userId: string;
  nickname: string;
  avatarUrl: string | null;
  fanValue: number;
  level: string;
}

/** A tip as the work page's 最近打赏 shows it. */
export interface TipView {
  id: number;
  nickname: string;
  amount: number;
  /** Masked (替换); '' without one. */
  message: string;
  createdAt: string;
}
