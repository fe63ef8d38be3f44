import { FollowButton } from "~/components/ui/follow-button";

/** 关注作者 / 已关注 (decision 230) on an author's page. */
export function FollowAuthorButton({ authorId, following, signedIn }: { authorId: string; following: boolean; signedIn: boolean }) {
  return <FollowButton action={`/authors/${authorId}`} following={following} signedIn={signedIn} label="关注作者" className="follow-author-button" />;
}
