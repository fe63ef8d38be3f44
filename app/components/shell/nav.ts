interface NavItem {
  to: string;
  label: string;
  icon: string;
  requiresAuth: boolean;
}

export interface NavSection {
  title?: string;
  items: NavItem[];
}

/** docs/product.md: Screens, "Navigation shell". */
export const NAV_SECTIONS: NavSection[] = [
  {
    items: [
      { to: "/", label: "首页", icon: "⌂", requiresAuth: false },
      { to: "/rankings", label: "排行榜", icon: "♛", requiresAuth: false },
      { to: "/booklists", label: "书单", icon: "≣", requiresAuth: false },
      { to: "/following", label: "书架", icon: "♡", requiresAuth: true },
      { to: "/history", label: "阅读记录", icon: "◷", requiresAuth: true },
      { to: "/bookmarks", label: "书签和划线", icon: "⚑", requiresAuth: true },
      { to: "/purchased", label: "已购买作品", icon: "◈", requiresAuth: true },
      { to: "/my-booklists", label: "我的书单", icon: "☷", requiresAuth: true },
    ],
  },
  {
    title: "作品管理",
    items: [
      { to: "/my-works", label: "我的作品", icon: "▤", requiresAuth: true },
      { to: "/submit", label: "上传作品", icon: "⇪", requiresAuth: true },
      { to: "/income", label: "我的收入", icon: "¥", requiresAuth: true },
    ],
  },
  {
    title: "AI 辅助写作",
    items: [
      { to: "/free-writing", label: "自由创作", icon: "✎", requiresAuth: true },
      { to: "/short-writing", label: "短篇仿写", icon: "❖", requiresAuth: true },
      { to: "/series-writing", label: "连载续写", icon: "☰", requiresAuth: true },
    ],
  },
];
