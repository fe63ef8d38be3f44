import { eq, sql } from "drizzle-orm";
import type { Database } from "~/db/types";
import { admins, prompts, siteConfigs } from "~/db/schema";
import { hashPassword } from "~/server/platform/password.server";

export const DEFAULT_SITE_CONFIGS: Record<string, string> = {
  site_title: "砚台",
  site_description:
    "砚台是一个写小说、读小说的地方。在这里发布你的作品，收获读者；也可以借助 AI 写作助手，从一个灵感出发，写完一个完整的故事。",
  credits_to_tokens_ratio: "100",
  initial_tokens: "10000",
  payment_method_v2: "redeem_code",
  store_url_v2: "",
  payment_gateway_url: "",
  merchant_pid: "",
  merchant_key: "",
  default_api_provider: "",
  logo_url: "",
  hero_url: "",
  default_cover_url: "",
  site_icon: "",
  // The serial economy (docs/product.md#paying-by-chapter): 千字价 default and range,
  // the author's share (%), the whole-book discount (%), the smallest payout.
  chapter_price_per_thousand: "5",
  chapter_price_per_thousand_min: "1",
  chapter_price_per_thousand_max: "50",
  author_share_percent: "70",
  whole_book_discount_percent: "0",
  payout_minimum: "100",
  // 全勤奖 (docs/product.md#contracts, decision 236): signed authors who published at least
  // this many 字 on every China-time day of a month earn the bonus (credits of income; 0: none).
  attendance_min_words: "4000",
  attendance_bonus: "0",
  // 粉丝等级 (docs/product.md#tips-and-fans, decision 207): one level a line, 名称 and the
  // 粉丝值 it starts at, from 0 up; Qidian's names and steps.
  fan_levels: "见习 0\n学徒 500\n弟子 2000\n执事 5000\n舵主 10000\n堂主 20000\n护法 30000\n长老 50000\n掌门 70000\n宗师 100000\n盟主 200000",
  // 青少年模式 (docs/product.md#minor-mode, decision 218): a minor's cap per payment and per
  // China-time month (yuan for top-ups, credits for spending, 1 yuan = 1 credit), and the
  // optional hours (China time) chapters cannot be read.
  minor_cap_per_payment: "50",
  minor_cap_per_month: "200",
  minor_hours: "off",
  minor_hours_from: "22:00",
  minor_hours_to: "06:00",
  // 月票 and 推荐票 (docs/product.md#votes, decision 222): credits spent on works per 月票 in
  // a China-time month; an account votes from this many days after registering (0: at
  // once); 推荐票 levels, one `名称 累计消费 每日推荐票` a line.
  monthly_vote_credits: "100",
  vote_min_account_days: "0",
  recommend_vote_levels: "初级读者 0 2\n中级读者 500 3\n高级读者 5000 4\n资深读者 50000 5",
  // 先审后发 (docs/product.md#review, decision 196): chapters of authors with fewer than
  // `review_trusted_after` published chapters wait for a reviewer; AI-labelled works may too.
  review_new_authors: "on",
  // 未签约 authors wait for review whatever their count (issue 30 part 1, decision 236).
  review_unsigned_authors: "on",
  review_trusted_after: "10",
  review_ai_works: "off",
  // 跟踪审读 (decision 206): the share of trusted authors' released chapters drawn for a
  // reviewer (0: none drawn at random), beside every one holding a word of the list.
  review_sample_percent: "10",
  // 实名认证 (docs/product.md#author-identity, decision 205): required before VIP chapters and
  // payouts; without IDENTITY_KEY selling stays closed unless the operator opens it.
  identity_required: "on",
  identity_sell_without_key: "off",
  // 提现代扣个税 (docs/product.md#author-income, decision 209): labor (劳务报酬所得) or
  // royalty (稿酬所得), aggregated per author per China-time month.
  payout_tax_rule: "labor",
  // 后台实名 (docs/product.md#phone-verification, decision 235): a verified phone number before
  // posting 本章说, 段评, replies, 书评 and a tip's message.
  comment_phone_required: "on",
  terms_content: `<h2>用户协议</h2>
<p>欢迎使用砚台。注册或使用本站即表示你同意本协议。</p>
<h3>一、账号</h3>
<p>你应使用真实有效的邮箱注册，并妥善保管密码。通过你的账号进行的操作视为你本人的操作。</p>
<h3>二、内容</h3>
<p>你发布的作品应为你本人创作或已获授权，不得侵犯他人权利，不得包含违法信息。R-18 作品须如实标注分级；使用 AI 辅助创作的作品应如实勾选“AI 生成”。</p>
<h3>三、积分与 Tokens</h3>
<p>积分可通过兑换码或在线支付获得，可用于购买付费作品或兑换 AI Tokens。已消费的积分和 Tokens 不予退还，未使用的充值可按《退款政策》申请退款。</p>
<h3>四、协议变更</h3>
<p>本站可能更新本协议，更新后的协议在本页公布后生效。</p>`,
  privacy_content: `<h2>隐私政策</h2>
<p>我们重视你的隐私。本政策说明砚台收集哪些信息以及如何使用。</p>
<h3>一、我们收集的信息</h3>
<p>注册时的邮箱、你设置的昵称、头像和 pixiv ID，你发布的作品，以及积分、Tokens 的变动记录。</p>
<h3>二、信息的使用</h3>
<p>这些信息仅用于提供本站服务：登录、展示作品、结算积分和 Tokens。我们不会出售你的个人信息。</p>
<h3>三、AI 写作</h3>
<p>使用 AI 写作工具时，你提交的设定与情节会发送给站点配置的 AI 服务商以生成内容。</p>
<h3>四、联系我们</h3>
<p>如对本政策有疑问，请通过站内公布的联系方式与我们联系。</p>`,
};

interface DefaultPrompt {
  code: string;
  title: string;
  type: "free" | "imitate" | "continue";
  systemContent: string;
  userContent: string;
}

export const DEFAULT_PROMPTS: DefaultPrompt[] = [
  {
    code: "P01",
    title: "自由创作",
    type: "free",
    systemContent:
      "你是一位经验丰富的中文小说作者，擅长根据设定写出情节紧凑、人物鲜明、语言自然的小说正文。只输出正文，不要输出标题、解释或任何额外说明。",
    userContent: `请根据以下设定创作一段小说正文。

【故事梗概】
{|synopsis|}

【角色设定】
{|character-setting|}

【整体大纲】
{|outline|}

【本段情节】
{|key-moment|}

【本段出场角色】
{|key-character|}

【场景与环境】
{|key-stage|}

【补充说明】
{|additional-information|}

要求：篇幅约 {|expected-word-count|} 字；紧扣本段情节，人物言行符合设定；使用简体中文。`,
  },
  {
    code: "P02",
    title: "小说分析",
    type: "imitate",
    systemContent:
      "你是一位专业的小说编辑，擅长拆解小说的人物与情节结构。你只输出合法的 JSON，不输出任何其他文字。",
    userContent: `请分析下面这篇小说，提取其中的角色设定和情节大纲。

只输出如下格式的 JSON（不要使用代码块，不要添加注释）：
{
  "message": "success",
  "角色设定": [
    { "姓名": "角色名", "性格": "性格特点", "外貌": "外貌描写", "其他": "身份、经历等补充信息" }
  ],
  "大纲": [
    { "标题": "情节标题", "出场角色": ["角色名"], "概要": "这一段发生了什么", "环境": "时间、地点与氛围" }
  ]
}

大纲按故事发展顺序排列，每段情节一个对象。

小说原文：
{|synopsis|}`,
  },
  {
    code: "P03",
    title: "短篇仿写",
    type: "imitate",
    systemContent:
      "你是一位擅长仿写的中文小说作者。你会学习参考作品的叙事节奏与文风，但写出全新的情节和句子，绝不照抄原文。只输出正文。",
    userContent: `请仿照参考作品的风格，根据以下设定写一段新的小说正文。

【故事梗概】
{|synopsis|}

【角色设定】
{|character-setting|}

【整体大纲】
{|outline|}

【本段情节】
{|key-moment|}

【本段出场角色】
{|key-character|}

【场景与环境】
{|key-stage|}

【补充说明】
{|additional-information|}

【参考作品节选（仅供模仿文风，不要照抄）】
{|reference-sample|}

要求：篇幅约 {|expected-word-count|} 字；保留参考作品的语言风格和节奏，情节与句子必须是新的；使用简体中文。`,
  },
  // The editor's operations (decision 130): 改写, 扩写, 缩写, 润色 on a selection, 续写 from
  // the cursor. Required by the product: the back office edits them but cannot delete them.
  ...(
    [
      ["P05", "改写选中文字", "换一种写法重写下面选中的文字：保留原意、人物和情节，换用新的句子和表达"],
      ["P06", "扩写选中文字", "扩写下面选中的文字：保留原有情节，补充细节、动作、对话和心理描写"],
      ["P07", "缩写选中文字", "缩写下面选中的文字：保留关键情节和人物，删去次要的描写"],
      ["P08", "润色选中文字", "润色下面选中的文字：修正语病，让语言更流畅生动，不改变情节和人物"],
    ] as const
  ).map(([code, title, task]) => ({
    code,
    title,
    type: "free" as const,
    systemContent:
      "你是一位经验丰富的中文小说编辑，帮助作者修改小说正文中选中的一段。只输出修改后的这一段文字，不要输出解释、标题、引号或前后文。",
    userContent: `请${task}。

【故事梗概】
{|synopsis|}

【角色设定】
{|character-setting|}

【前文】
{|preceding-text|}

【选中的文字】
{|selected-text|}

【后文】
{|following-text|}

要求：篇幅约 {|expected-word-count|} 字；与前文、后文衔接自然；使用简体中文。`,
  })),
  {
    code: "P09",
    title: "光标处续写",
    type: "free",
    systemContent:
      "你是一位经验丰富的中文小说作者，接着作者已经写下的正文往下写。只输出续写的正文，不要重复前文，不要输出标题或解释。",
    userContent: `请从前文结束的地方接着往下写。

【故事梗概】
{|synopsis|}

【角色设定】
{|character-setting|}

【本段情节】
{|key-moment|}

【前文】
{|preceding-text|}

【后文（如有，续写要能接上）】
{|following-text|}

要求：篇幅约 {|expected-word-count|} 字；紧接前文的最后一句，人物言行符合设定；使用简体中文。`,
  },
  {
    // Serial continuation (docs/decisions/127): assembleContinuationContext fills it.
    code: "P04",
    title: "连载续写",
    type: "continue",
    systemContent:
      "你是一位经验丰富的中文网络小说作者，正在续写一部长篇连载。你严格遵守故事设定中仍然有效的事实（人物的伤病、生死、身份、关系），不与前文矛盾，并在合适的时候推进或回收未完成的伏笔。只输出正文，不要输出标题、解释或任何额外说明。",
    userContent: `请为《{|work-title|}》续写第{|chapter-number|}章。

【本章计划】
{|plan|}

【更早的剧情（按卷）】
{|earlier-summaries|}

【最近几章摘要】
{|recent-summaries|}

【本章相关设定（在第{|chapter-number|}章仍然有效）】
{|story-bible|}

【未回收的伏笔】
{|open-threads|}

【上一章结尾】
{|previous-ending|}

要求：紧接上一章结尾，按本章计划展开；不得违背上面的设定；使用简体中文。`,
  },
  {
    // Chapter summary and proposed facts after publication (docs/decisions/128), P10.
    code: "P10",
    title: "章节摘要与设定建议",
    type: "continue",
    systemContent: "你是一位细心的小说编辑，负责为连载小说整理章节摘要和故事设定。你只输出合法的 JSON，不输出任何其他文字。",
    userContent: `下面是《{|work-title|}》第{|chapter-number|}章「{|chapter-title|}」的正文。请写出本章摘要（200字以内），列出本章新出现或发生变化的设定事实（人物的伤病、生死、身份、关系，地点、物品、势力的变化），以及角色在本章发生变化的状态（境界、生死、位置、物品的获得失去或交给他人、年龄、得知的秘密）。

已有的设定名称：{|known-entities|}
本作品的境界阶梯（从低到高）：{|realm-ladder|}

只输出如下格式的 JSON（不要使用代码块）：
{
  "摘要": "本章发生了什么",
  "设定": [
    { "名称": "设定所属的角色、地点、物品或势力名称", "类型": "角色", "内容": "从本章起成立的事实" }
  ],
  "状态": [
    { "名称": "角色名称", "类型": "境界、生死、位置、物品、年龄或知情", "值": "金丹 / 死亡 / 青石巷 / 青冥剑 / 17 / 得知的事", "动作": "仅物品：获得、失去或交给", "备注": "境界下降的原因，或物品交给了谁" }
  ]
}

正文：
{|chapter-text|}`,
  },
  {
    // The continuity page's optional AI 审读 of one chapter (docs/decisions/258), P11.
    code: "P11",
    title: "连续性AI审读",
    type: "continue",
    systemContent: "你是一位严谨的连载小说编辑，负责找出章节中前后矛盾的地方。你只输出合法的 JSON，不输出任何其他文字。",
    userContent: `下面是《{|work-title|}》第{|chapter-number|}章「{|chapter-title|}」的正文，以及截至本章的设定和状态记录。请找出正文中与这些记录或与本章自身前后矛盾的地方：已死亡的角色说话或行动、境界无故倒退、失去或交出的物品又被使用、同一角色同时出现在两地、年龄或时间对不上、称呼混乱等。不要评价文笔，不要猜测以后的情节。

设定与状态记录：
{|ledger|}

只输出如下格式的 JSON（不要使用代码块），没有发现问题时输出 {"问题": []}：
{
  "问题": [
    { "引文": "正文中有问题的原句（照抄）", "说明": "矛盾在哪里，和哪条记录或前文冲突" }
  ]
}

正文：
{|chapter-text|}`,
  },
];


/** What a site that already ran gets for a rule added since, instead of the new default. */
const AS_BEFORE: Record<string, string> = {
  review_new_authors: "off",
  review_sample_percent: "0",
  review_unsigned_authors: "off",
  identity_required: "off",
  comment_phone_required: "off",
};

/**
 * Writes the default site configuration and prompts where they are missing. Existing
 * values are never overwritten, so an administrator's changes survive restarts.
 */
export async function seedDefaults(db: Database): Promise<void> {
  // A site that ran before a rule existed keeps working as it did until its operator turns
  // the rule on; a new site starts with it on: review (decision 196), 跟踪审读 (206),
  // 实名认证 (205), 后台实名 (235).
  const present = new Set((await db.select({ key: siteConfigs.key }).from(siteConfigs)).map((r) => r.key));
  if (present.size > 0) {
    const asBefore = Object.entries(AS_BEFORE).filter(([key]) => !present.has(key));
    if (asBefore.length > 0) {
      await db
        .insert(siteConfigs)
        .values(asBefore.map(([key, value]) => ({ key, value })))
        .onConflictDoNothing({ target: siteConfigs.key });
    }
  }
  await db
    .insert(siteConfigs)
    .values(Object.entries(DEFAULT_SITE_CONFIGS).map(([key, value]) => ({ key, value })))
    .onConflictDoNothing({ target: siteConfigs.key });
  await db
    .insert(prompts)
    .values(DEFAULT_PROMPTS.map((p) => ({ ...p, isSystem: true })))
    .onConflictDoNothing({ target: prompts.code });

  const email = process.env.ADMIN_EMAIL?.trim().toLowerCase();
  const password = process.env.ADMIN_PASSWORD;
  if (email && password) {
    const existing = await db.select({ id: admins.id }).from(admins).where(eq(admins.email, email));
    if (existing.length === 0) {
      await db
        .insert(admins)
        // The first administrator is a 超级管理员 (docs/product.md#admin-roles).
        .values({ email, passwordHash: await hashPassword(password), role: "super" })
        .onConflictDoNothing({ target: admins.email });
    }
  }
}
