/**
 * Chinese names of the audit log's action codes for /admin/audit (docs/product.md#audit-log).
 * A code missing here is shown as itself; codes are free-form (docs/decisions/132).
 */
export const AUDIT_ACTION_LABELS: Record<string, string> = {
  "admin.create": "添加管理员",
  "admin.disable": "停用管理员",
  "admin.enable": "启用管理员",
  "admin.role": "修改管理员角色",
  "admin.reset-password": "重置管理员密码",
  "admin.password": "修改自己的密码",
  "admin.totp-enable": "开启两步验证",
  "admin.totp-disable": "关闭两步验证",
  "api-config.create": "新建API配置",
  "api-config.update": "修改API配置",
  "api-config.delete": "删除API配置",
  "api-config.default": "设为默认API配置",
  "api-token.create": "创建API令牌",
  "api-token.revoke": "撤销API令牌",
  "category.add": "新增分类",
  "category.rename": "重命名分类",
  "category.delete": "删除分类",
  "category.up": "分类上移",
  "category.down": "分类下移",
  "code.generate": "生成兑换码",
  "code.void": "作废兑换码",
  "export.database": "导出数据库",
  "export.unused-codes": "导出未使用兑换码",
  "export.work-txt": "导出作品TXT",
  "payout.paid": "提现已支付",
  "payout.refused": "拒绝提现",
  "prompt.create": "新建提示词",
  "prompt.update": "修改提示词",
  "prompt.delete": "删除提示词",
  "settings.payment": "修改支付配置",
  "settings.payment-api": "修改支付接口",
  "settings.tokens": "修改Tokens配置",
  "settings.economy": "修改稿酬与定价",
  "settings.description": "修改站点简介",
  "settings.terms": "修改用户协议",
  "settings.privacy": "修改隐私政策",
  "settings.image": "修改站点图片",
  "settings.site": "修改站点名称",
};

export function auditActionLabel(code: string): string {
  return AUDIT_ACTION_LABELS[code] ?? code;
}

/** What an audit row's target may be, for the filter's list (codes are free-form). */
export const AUDIT_TARGET_LABELS: Record<string, string> = {
  user: "用户",
  work: "作品",
  comment: "评论",
  order: "支付订单",
  payout: "提现申请",
  prompt: "提示词",
  category: "分类",
  "redeem-code": "兑换码",
  setting: "站点设置",
  "api-config": "API配置",
  "api-token": "API令牌",
  admin: "管理员",
  export: "导出",
};
