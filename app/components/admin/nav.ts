type Role = "super" | "operator" | "chief_editor" | "reviewer";

interface AdminNavItem {
  to: string;
  label: string;
  /** Only a 超级管理员 sees it (the route sits under routes/admin/super-only.tsx). */
  superOnly?: boolean;
  /** Who sees it, when not 超级管理员 and 运营 (the layouts of app/routes.ts decide). */
  roles?: readonly Role[];
}

/** A menu group: one link, or several under a heading that folds (docs/product.md: Back office). */
export interface AdminNavGroup {
  label: string;
  to?: string;
  items?: AdminNavItem[];
}

const STAFF: readonly Role[] = ["super", "operator"];
const REVIEWERS: readonly Role[] = ["super", "chief_editor", "reviewer"];

const ADMIN_NAV: AdminNavGroup[] = [
  { label: "仪表盘", to: "/admin/dashboard" },
  {
    label: "支付管理",
    items: [
      { to: "/admin/payment", label: "支付配置", superOnly: true },
      { to: "/admin/settings/payment-api", label: "支付接口", superOnly: true },
      { to: "/admin/codes", label: "兑换码管理" },
      { to: "/admin/orders", label: "充值订单" },
      { to: "/admin/payment-notifies", label: "支付通知" },
      { to: "/admin/money", label: "资金报表" },
      { to: "/admin/payouts", label: "提现申请" },
      { to: "/admin/settings/economy", label: "稿酬与定价", superOnly: true },
      { to: "/admin/settings/fans", label: "粉丝等级", superOnly: true },
      { to: "/admin/settings/minors", label: "青少年模式", superOnly: true },
      { to: "/admin/settings/votes", label: "月票与推荐票", superOnly: true },
    ],
  },
  { label: "用户管理", to: "/admin/users" },
  {
    label: "内容审核",
    items: [
      { to: "/admin/review", label: "审核队列", roles: REVIEWERS },
      { to: "/admin/settings/review", label: "审核规则", roles: ["super", "chief_editor"] },
      { to: "/admin/identity", label: "实名审核", roles: STAFF },
    ],
  },
  {
    label: "内容管理",
    items: [
      { to: "/admin/works", label: "作品管理" },
      { to: "/admin/comment-reports", label: "评论举报" },
      { to: "/admin/book-review-reports", label: "书评举报" },
      { to: "/admin/screening", label: "敏感词库" },
    ],
  },
  {
    label: "首页运营",
    items: [
      { to: "/admin/front-page", label: "编辑推荐" },
      { to: "/admin/rankings", label: "排行管理" },
      { to: "/admin/announcements", label: "公告" },
    ],
  },
  { label: "提示词管理", to: "/admin/prompts" },
  { label: "作品分类", to: "/admin/categories" },
  {
    label: "站点配置",
    items: [
      { to: "/admin/settings/site", label: "站点名称", superOnly: true },
      { to: "/admin/settings/icon", label: "站点图标", superOnly: true },
      { to: "/admin/settings/api", label: "API配置", superOnly: true },
      { to: "/admin/settings/tokens", label: "Tokens配置", superOnly: true },
      { to: "/admin/settings/cover", label: "默认封面", superOnly: true },
      { to: "/admin/settings/logo", label: "站点标识", superOnly: true },
      { to: "/admin/settings/hero", label: "首页主图", superOnly: true },
      { to: "/admin/settings/description", label: "站点简介", superOnly: true },
      { to: "/admin/settings/terms", label: "用户协议", superOnly: true },
      { to: "/admin/settings/privacy", label: "隐私政策", superOnly: true },
    ],
  },
  {
    label: "数据管理",
    items: [
      { to: "/admin/migration", label: "数据导出", superOnly: true },
      { to: "/admin/api-tokens", label: "API令牌", superOnly: true },
    ],
  },
  {
    label: "系统管理",
    items: [
      { to: "/admin/audit", label: "操作日志" },
      { to: "/admin/admins", label: "管理员", superOnly: true },
      { to: "/admin/account", label: "我的账户", roles: ["super", "operator", "chief_editor", "reviewer"] },
    ],
  },
  { label: "单元测试", items: [{ to: "/admin/tests/openai", label: "AI对话接口测试", superOnly: true }] },
];

/** The menu a role sees: the items its role may open, and no group left empty. */
export function navFor(role: Role): AdminNavGroup[] {
  const sees = (item: { superOnly?: boolean; roles?: readonly Role[] }) => (item.superOnly ? role === "super" : (item.roles ?? STAFF).includes(role));
  return ADMIN_NAV.map((g) => (g.items ? { ...g, items: g.items.filter(sees) } : g)).filter((g) => (g.to ? sees({}) : (g.items?.length ?? 0) > 0));
}

/** Whether `pathname` is `to` or a page below it (/admin/users/:id highlights 用户管理). */
export function isCurrent(pathname: string, to: string): boolean {
  return pathname === to || pathname.startsWith(`${to}/`);
}
