import { type RouteConfig, index, layout, prefix, route } from "@react-router/dev/routes";

export default [
  // Resource routes
  route("healthz", "routes/api/healthz.ts"),
  route("auth/logout", "routes/api/logout.ts"),
  route("home", "routes/public/home-redirect.ts"),
  route("files/*", "routes/api/files.ts"),
  route("covers/:file", "routes/api/default-cover.ts"),
  ...prefix("api", [
    route("events", "routes/api/events.ts"),
    route("generate", "routes/api/generate.ts"),
    // The editor's operations on a selection, their candidates streamed (decision 130).
    route("operate", "routes/api/operate.ts"),
    // 连载续写's 生成下一章, streamed (docs/decisions/141).
    route("continue", "routes/api/continue.ts"),
    route("notify", "routes/api/notify.ts"),
    route("*", "routes/api/not-found.ts"),
  ]),
  // The reader's resource routes: the next batch of paragraphs, saving the position.
  route("works/:id/paragraphs", "routes/shell/reader/paragraphs.ts"),
  route("works/:id/progress", "routes/shell/reader/progress.ts"),
  // 离线阅读: the chapters a reader may keep on their device (decision 244).
  route("works/:id/offline", "routes/shell/reader/offline.ts"),
  // The reader's settings: font size, line height, page width, background (decision 106).
  route("reader-settings", "routes/shell/reader/reader-settings.ts"),
  // The owner's downloads of a work: 404 to anyone else, visitors included (decision 098).
  route("works/:id/export.txt", "routes/shell/studio/export.ts", { id: "studio-export-txt" }),
  route("works/:id/export.epub", "routes/shell/studio/export.ts", { id: "studio-export-epub" }),
  // The reader's live refresh of the comment counts (decision 101).
  route("works/:id/comment-counts", "routes/shell/reader/comment-counts.ts"),
  // A work's public Atom feed of chapters (docs/product.md#notifications).
  route("works/:id/feed.xml", "routes/public/work-feed.ts"),
  // For search engines (docs/decisions/200): what to crawl, and the sitemap index and its pages.
  route("robots.txt", "routes/public/robots.ts"),
  route("sitemap.xml", "routes/public/sitemap-index.ts"),
  route("sitemaps/:file", "routes/public/sitemap-page.ts"),
  // docs/product.md D4: /work/:id is an old spelling of /works/:id.
  route("work/:id", "routes/shell/reader/work-redirect.ts"),

  // Pages inside the navigation shell
  layout("routes/shell/layout.tsx", [
    index("routes/public/index.tsx"),
    route("works", "routes/public/works.tsx"),
    // Discovery (docs/product.md#discovery): a tag's works, the rankings.
    route("tags/:name", "routes/public/tag.tsx"),
    route("rankings", "routes/public/rankings.tsx"),
    // An author's page: their public works, followers, 关注作者 (docs/product.md#author-pages).
    route("authors/:id", "routes/public/author.tsx"),
    // 书单: readers' public lists of works, and one list's page (docs/product.md#booklists, decision 232).
    route("booklists", "routes/public/booklists.tsx"),
    route("booklists/:id", "routes/public/booklist.tsx"),
    route("terms", "routes/public/legal.tsx", { id: "terms" }),
    route("privacy", "routes/public/legal.tsx", { id: "privacy" }),
    route("refund", "routes/public/refund.tsx"),
    route("auth/login", "routes/public/auth-login.tsx"),
    route("auth/register", "routes/public/auth-register.tsx"),
    route("auth/forgot-password", "routes/public/auth-forgot-password.tsx"),
    route("auth/reset-password", "routes/public/auth-reset-password.tsx"),

    // The reader: visitors read free works (docs/product.md D5).
    route("works/:id", "routes/shell/reader/work.tsx"),
    // A chapter's comments: 本章说, or one paragraph's 段评 (?p=), as a page (decision 090).
    route("works/:id/comments", "routes/shell/reader/comments.tsx"),
    // 书评区: a work's reviews and ratings; writing one needs a session (docs/product.md#book-reviews).
    route("works/:id/reviews", "routes/shell/reader/reviews.tsx"),
    // A work's 粉丝榜: its top fans by 粉丝值, with their levels (decision 207).
    route("works/:id/fans", "routes/shell/reader/fans.tsx"),
    // 角色百科: the author's opted-in characters, only as far as the reader has read (decision 259).
    route("works/:id/wiki", "routes/shell/reader/wiki.tsx"),
    route("works/:id/wiki/:entityId", "routes/shell/reader/wiki-entity.tsx"),

    // Signed-in pages: the layout's middleware redirects a visitor to the login dialog
    // before any loader or action below runs (docs/architecture.md#guards).
    layout("routes/shell/signed-in.tsx", [
      route("following", "routes/shell/library/following.tsx"),
      // 阅读记录: the works the reader opened, newest first (docs/product.md#reading-history).
      route("history", "routes/shell/library/history.tsx"),
      // 消息通知: the inbox, and the bell's live count (docs/product.md#notifications).
      route("notifications", "routes/shell/notifications/inbox.tsx"),
      route("purchased", "routes/shell/library/purchased.tsx"),
      // 我的书单, 管理书单, and 加入书单 from a work page (docs/product.md#booklists, decision 232).
      route("my-booklists", "routes/shell/library/my-booklists.tsx"),
      route("booklists/:id/edit", "routes/shell/library/booklist-edit.tsx"),
      route("works/:id/booklist", "routes/shell/reader/add-to-booklist.tsx"),
      // A reader's EPUB of a free or bought work, with their id in it (docs/decisions/123).
      route("works/:id/book.epub", "routes/shell/reader/book-epub.ts"),
      // 打赏 (docs/product.md#tips-and-fans, decision 207): from a chapter's end or the work page.
      route("works/:id/tip", "routes/shell/reader/tip.tsx"),
      // 月票 and 推荐票 (docs/product.md#votes, decision 222): from the work page or a chapter's end.
      route("works/:id/vote", "routes/shell/reader/vote.tsx"),
      // 错别字: a reader reports a sentence of a chapter to its author (docs/product.md#typo-reports).
      route("works/:id/typo", "routes/shell/reader/typo.tsx"),
      // 书签 and 划线 (decision 241): a paragraph's page and where the reader's marks are added; the list of them all.
      route("works/:id/marks", "routes/shell/reader/marks.tsx"),
      route("bookmarks", "routes/shell/library/bookmarks.tsx"),
      route("payment/success", "routes/shell/credits/payment-success.tsx"),
      route("my-works", "routes/shell/works/my-works.tsx"),
      route("submit", "routes/shell/works/submit.tsx"),
      route("works/:id/edit", "routes/shell/works/edit.tsx"),
      route("works/:id/new-chapter", "routes/shell/works/new-chapter.tsx"),
      route("works/:id/delete", "routes/shell/works/delete.tsx"),
      // The author studio (docs/product.md#author-studio): the owner's settings and chapters.
      route("works/:id/settings", "routes/shell/studio/settings.tsx"),
      route("works/:id/chapters", "routes/shell/studio/chapters.tsx"),
      // How the work is sold: free, whole, or by chapter (docs/product.md#paying-by-chapter).
      route("works/:id/pricing", "routes/shell/studio/pricing.tsx"),
      route("works/:id/stats", "routes/shell/studio/stats.tsx"),
      // 读者行为: drop-off by chapter, 段评 heat, characters mentioned (docs/decisions/253).
      route("works/:id/stats/readers", "routes/shell/studio/reader-insights.tsx"),
      route("works/:id/chapters/new", "routes/shell/studio/chapter-new.tsx"),
      route("works/:id/chapters/:chapterId", "routes/shell/studio/chapter-edit.tsx"),
      // The editor's autosave (a resource route answering JSON) and the chapter's last saves.
      route("works/:id/chapters/:chapterId/autosave", "routes/shell/studio/chapter-autosave.ts"),
      route("works/:id/chapters/:chapterId/revisions", "routes/shell/studio/chapter-revisions.tsx"),
      // Appealing a reviewer's 退回修改 or 拒绝 to the 总编辑, once (docs/product.md#review).
      route("works/:id/chapters/:chapterId/appeal", "routes/shell/studio/chapter-appeal.tsx"),
      route("works/:id/appeal", "routes/shell/studio/work-appeal.tsx"),
      route("works/:id/comment-mutes", "routes/shell/studio/comment-mutes.tsx"),
      // The story bible, plot threads and summaries; 本次上下文 (docs/product.md#story-bible).
      route("works/:id/bible", "routes/shell/studio/bible.tsx"),
      route("works/:id/continuity", "routes/shell/studio/continuity.tsx"),
      // 写作台: the author's page of the day for a work (decision 261).
      route("works/:id/desk", "routes/shell/studio/desk.tsx"),
      // 大纲: 总纲, 卷纲, 细纲 and their AI drafting (docs/decisions/255).
      route("works/:id/outline", "routes/shell/studio/outline.tsx"),
      route("works/:id/context", "routes/shell/studio/context.tsx"),
      route("free-writing", "routes/shell/writing/free-writing.tsx"),
      route("short-writing", "routes/shell/writing/short-writing.tsx"),
      route("series-writing", "routes/shell/writing/series-writing.tsx"),
      route("credits", "routes/shell/credits/credits.tsx"),
      // One generation's receipt in the token history (docs/product.md D15).
      route("credits/receipts/:id", "routes/shell/credits/receipt.tsx"),
      // The author's income: balance, sales, payout requests (docs/product.md#author-income).
      route("income", "routes/shell/credits/income.tsx"),
      // 收款账户 and each payout's 结算单 (decisions 209 and 210).
      route("income/account", "routes/shell/credits/payout-account.tsx"),
      route("income/payouts/:id", "routes/shell/credits/payout-statement.tsx"),
      route("settings", "routes/shell/settings/settings.tsx"),
      route("settings/avatar", "routes/shell/settings/avatar.tsx"),
      route("settings/nickname", "routes/shell/settings/nickname.tsx"),
      route("settings/pixiv-id", "routes/shell/settings/pixiv-id.tsx"),
      route("settings/password", "routes/shell/settings/password.tsx"),
      // 绑定手机号 by a code (后台实名, docs/product.md#phone-verification, decision 235).
      route("settings/phone", "routes/shell/settings/phone.tsx"),
      // 阅读App（OPDS）: the reader's tokens for the catalog (decision 201).
      route("settings/opds", "routes/shell/settings/opds.tsx"),
      // 实名认证 (docs/product.md#author-identity): status, the form, masked values after.
      route("settings/identity", "routes/shell/settings/identity.tsx"),
      // 青少年模式 (docs/product.md#minor-mode, decision 218): on with a PIN, off with it.
      route("settings/minor-mode", "routes/shell/settings/minor-mode.tsx"),
      // 注销账号 (docs/product.md#account-deletion, decision 231): the request, its cool-off, 撤销.
      route("settings/delete-account", "routes/shell/settings/delete-account.tsx"),
      // 导出我的数据 (decision 231): a zip of the signed-in person's own data, nobody else's.
      route("exports/my-data.zip", "routes/exports/my-data.ts"),
      // 屏蔽: the reader's blocked authors and tags, and where every 屏蔽 button posts (decision 233).
      route("settings/blocks", "routes/shell/settings/blocks.tsx"),
    ]),
  ]),

  // Administrator back office (docs/product.md D8): its own login form and session; the
  // admin layout's middleware checks the session before any page or action below it runs.
  route("xbbadmin", "routes/admin/login.tsx"),
  ...prefix("admin", [
    route("logout", "routes/admin/logout.ts"),
    layout("routes/admin/layout.tsx", [
      // Every role: one's own password and two-factor login.
      route("account", "routes/admin/account.tsx"),
      // 先审后发 (docs/product.md#review): 审核员, 总编辑 and 超级管理员; a 运营 admin gets 403.
      layout("routes/admin/reviewers.tsx", [
        route("review", "routes/admin/review.tsx"),
        route("review/:id", "routes/admin/review-item.tsx"),
        // The review policy: 总编辑 and 超级管理员 only.
        layout("routes/admin/chief-only.tsx", [route("settings/review", "routes/admin/settings/review.tsx")]),
      ]),
      // 超级管理员 and 运营 (docs/product.md#admin-roles): a 审核员 or 总编辑 opening a page
      // below goes to the review queue, a post gets 403.
      layout("routes/admin/staff.tsx", [
        route("dashboard", "routes/admin/dashboard.tsx"),
        route("users", "routes/admin/users.tsx"),
        route("users/:id", "routes/admin/user-edit.tsx"),
        route("works", "routes/admin/works.tsx"),
        route("works/:id", "routes/admin/work.tsx"),
        route("comment-reports", "routes/admin/comment-reports.tsx"),
        route("book-review-reports", "routes/admin/book-review-reports.tsx"),
        // 实名审核 (docs/product.md#author-identity, decision 204): masked values only.
        route("identity", "routes/admin/identity.tsx"),
        route("identity/:id", "routes/admin/identity-item.tsx"),
        // The operator's front page (docs/product.md#front-page): 编辑推荐, 排行管理, 公告.
        route("front-page", "routes/admin/front-page/rows.tsx"),
        route("front-page/:id", "routes/admin/front-page/row.tsx"),
        route("rankings", "routes/admin/front-page/rankings.tsx"),
        route("announcements", "routes/admin/front-page/announcements.tsx"),
        route("prompts", "routes/admin/prompts.tsx"),
        route("categories", "routes/admin/categories.tsx"),
        // 敏感词库 (docs/product.md#screening): the word list, its TXT import and export.
        route("screening", "routes/admin/screening.tsx"),
        route("screening/words.txt", "routes/admin/screening-export.ts"),
        route("codes", "routes/admin/codes.tsx"),
        route("payouts", "routes/admin/payouts.tsx"),
        route("payouts/:id", "routes/admin/payout.tsx"),
        route("orders", "routes/admin/orders.tsx"),
        route("orders/:outTradeNo", "routes/admin/order.tsx"),
        route("payment-notifies", "routes/admin/payment-notifies.tsx"),
        route("money", "routes/admin/money.tsx"),
        // 操作日志 (docs/product.md#audit-log): every admin's actions.
        route("audit", "routes/admin/audit.tsx"),
        // 超级管理员 only: a 运营 admin gets 403 from the layout's middleware on every page
        // and action below (site settings, API keys, payment keys, exports, admins).
        layout("routes/admin/super-only.tsx", [
          route("admins", "routes/admin/admins.tsx"),
          // An identity's full values, once, for a reason that goes to the audit log (decision 204).
          route("identity/:id/reveal", "routes/admin/identity-reveal.tsx"),
          route("migration", "routes/admin/migration.tsx"),
          route("payment", "routes/admin/payment.tsx"),
          route("settings/site", "routes/admin/settings/site.tsx"),
          route("settings/economy", "routes/admin/settings/economy.tsx"),
          // 粉丝等级: the levels' names and the 粉丝值 each starts at (decision 207).
          route("settings/fans", "routes/admin/settings/fans.tsx"),
          // 青少年模式's caps and reading hours (decision 218).
          route("settings/minors", "routes/admin/settings/minors.tsx"),
          route("settings/votes", "routes/admin/settings/votes.tsx"),
          route("settings/payment-api", "routes/admin/settings/payment-api.tsx"),
          route("settings/api", "routes/admin/settings/api.tsx"),
          route("settings/tokens", "routes/admin/settings/tokens.tsx"),
          route("settings/cover", "routes/admin/settings/image.tsx", { id: "admin-settings-cover" }),
          route("settings/logo", "routes/admin/settings/image.tsx", { id: "admin-settings-logo" }),
          route("settings/hero", "routes/admin/settings/image.tsx", { id: "admin-settings-hero" }),
          route("settings/icon", "routes/admin/settings/image.tsx", { id: "admin-settings-icon" }),
          route("settings/description", "routes/admin/settings/description.tsx"),
          route("settings/terms", "routes/admin/settings/legal.tsx", { id: "admin-settings-terms" }),
          route("settings/privacy", "routes/admin/settings/legal.tsx", { id: "admin-settings-privacy" }),
          route("tests/openai", "routes/admin/tests/openai.tsx"),
          route("api-tokens", "routes/admin/api-tokens.tsx"),
        ]),
      ]),
    ]),
    // docs/product.md D4: /admin and unknown paths under it go to the dashboard.
    index("routes/admin/catch-all.ts", { id: "admin-index" }),
    route("*", "routes/admin/catch-all.ts"),
  ]),
  // Reading apps (docs/product.md#reading-apps, decision 201): the reader's OPDS catalog,
  // the personal token in the address checked by the layout's middleware (401 without one).
  ...prefix("opds/:token", [
    layout("routes/opds/layout.ts", [
      index("routes/opds/catalog.ts"),
      route("library", "routes/opds/library.ts"),
      route("works/:id/book.epub", "routes/opds/book-epub.ts"),
    ]),
  ]),
  // Files for administrators and their scripts (admin session or bearer API token), for
  // 超级管理员 only: the layout's middleware answers 403 to a 运营 admin.
  ...prefix("exports", [
    layout("routes/exports/layout.ts", [
      route("works/:id/txt", "routes/exports/work-txt.ts"),
      route("redeem-codes/unused.xlsx", "routes/exports/unused-codes.ts"),
      route("database.zip", "routes/exports/database.ts"),
      route("database/progress", "routes/exports/database-progress.ts"),
      // 财务导出 (docs/product.md#finance-exports, decision 226): ?report=&from=&to=&format=.
      route("finance", "routes/exports/finance.ts"),
    ]),
    route("*", "routes/exports/not-found.ts"),
  ]),

  // docs/product.md D4: an unknown page path goes to the home page.
  route("*", "routes/public/catch-all.ts"),
] satisfies RouteConfig;
