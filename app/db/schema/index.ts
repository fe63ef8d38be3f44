export * from "./enums";
export * from "./users";
export * from "./ledger";
export * from "./works";
export * from "./site";
export * from "./admins";
export * from "./reading";
export * from "./writing";
