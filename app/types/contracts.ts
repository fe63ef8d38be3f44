/** 签约状态 as authors and operators read it (decision 236; app/server/economy/attendance.server.ts). */
export const CONTRACT_LABELS = { none: "未签约", signed: "签约作者", buyout: "买断作品作者" } as const;
export type ContractState = keyof typeof CONTRACT_LABELS;
