import { useLoaderData } from "react-router";
import { WritingPage } from "./writing-page";
import { userContext } from "~/middleware/guards.server";
import type { Route } from "./+types/free-writing";
import { writingAction, writingLoader } from "./writing-page.server";

export const meta: Route.MetaFunction = () => [{ title: "自由创作 - 砚台" }];

/** The form creates rows once per one-time token (decision 077; tests/integration/creating-forms.test.ts). */
export const handle = { creates: ["chapter"] };

export async function loader({ url, context }: Route.LoaderArgs) {
  return writingLoader(url, context.get(userContext), "free");
}

export async function action({ request, context }: Route.ActionArgs) {
  return writingAction(request, context.get(userContext), "free");
}

export default function FreeWriting({ actionData }: Route.ComponentProps) {
  return <WritingPage data={useLoaderData<typeof loader>()} actionData={actionData} />;
}
