import { Form } from "react-router";

/**
 * 屏蔽 / 取消屏蔽 (decision 233): a plain form posting to /settings/blocks with the page to
 * come back to, so it works without JavaScript (POST, redirect with a notice, GET).
 */
export function BlockButton({
  kind,
  value,
  back,
  blocked = false,
  children,
}: {
  kind: "author" | "tag";
  value: string;
  back: string;
  blocked?: boolean;
  children: string;
}) {
  return (
    <Form method="post" action="/settings/blocks" className="inline-form">
      <input type="hidden" name="intent" value={blocked ? "unblock" : "block"} />
      <input type="hidden" name="kind" value={kind} />
      <input type="hidden" name="value" value={value} />
      <input type="hidden" name="back" value={back} />
      <button type="submit" className="btn btn-small">
        {children}
      </button>
    </Form>
  );
}

/**
 * The work page's 屏蔽 menu (a native disclosure, no JavaScript): its author and each of its
 * tags, as 屏蔽 or, for what the reader already blocked, 取消屏蔽.
 */
export function WorkBlockMenu({
  authorId,
  authorNickname,
  tags,
  blocked,
  back,
}: {
  authorId: string;
  authorNickname: string;
  tags: string[];
  blocked: { author: boolean; tags: string[] };
  back: string;
}) {
  return (
    <details className="block-menu">
      <summary>屏蔽</summary>
      <div className="block-menu-items">
        <BlockButton kind="author" value={authorId} back={back} blocked={blocked.author}>
          {blocked.author ? `取消屏蔽作者 ${authorNickname}` : `屏蔽作者 ${authorNickname}`}
        </BlockButton>
        {tags.map((tag) => {
          const on = blocked.tags.includes(tag);
          return (
            <BlockButton key={tag} kind="tag" value={tag} back={back} blocked={on}>
              {on ? `取消屏蔽标签 #${tag}` : `屏蔽标签 #${tag}`}
            </BlockButton>
          );
        })}
      </div>
    </details>
  );
}
