/** 月票 or 推荐票 (decision 222). */
export type VoteKind = "monthly" | "recommend";

/** A 推荐票 level: from this 累计消费 on, this many free 推荐票 a China-time day. */
export interface RecommendLevel {
  name: string;
  threshold: number;
  daily: number;
}

/** What a reader holds now (docs/product.md#votes). */
export interface VoteBalance {
  /** 月票 left this China-time month. */
  monthly: number;
  monthlyEarned: number;
  spentThisMonth: number;
  creditsPerMonthly: number;
  /** 推荐票 left today. */
  recommend: number;
  recommendDaily: number;
  level: string;
}
